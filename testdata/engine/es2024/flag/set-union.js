// want: Set.prototype.union
const a = new Set([1]);
return a.union(new Set([2]));
