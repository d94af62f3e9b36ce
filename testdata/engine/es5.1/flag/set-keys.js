// want: Set.prototype.keys
function list(x) { return Set.prototype.keys.call(x); }
return typeof list;
