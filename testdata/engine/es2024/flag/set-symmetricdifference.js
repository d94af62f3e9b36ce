// want: Set.prototype.symmetricDifference
const a = new Set([1]);
return a.symmetricDifference(new Set([2]));
