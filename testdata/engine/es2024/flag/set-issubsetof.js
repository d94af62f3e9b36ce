// want: Set.prototype.isSubsetOf
const a = new Set([1]);
return a.isSubsetOf(new Set([2]));
