// want: Set.prototype.intersection
const a = new Set([1]);
return a.intersection(new Set([2]));
