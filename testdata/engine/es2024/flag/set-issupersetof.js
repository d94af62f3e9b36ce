// want: Set.prototype.isSupersetOf
const a = new Set([1]);
return a.isSupersetOf(new Set([2]));
