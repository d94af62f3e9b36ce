// want: String.prototype.includes
function has(list, x) { return list.includes(x); }
return typeof has;
