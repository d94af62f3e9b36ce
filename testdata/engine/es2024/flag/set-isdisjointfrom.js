// want: Set.prototype.isDisjointFrom
const a = new Set([1]);
return a.isDisjointFrom(new Set([2]));
