// want: Set.prototype.difference
const a = new Set([1]);
return a.difference(new Set([2]));
