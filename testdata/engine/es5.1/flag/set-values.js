// want: Set.prototype.values
function list(x) { return Set.prototype.values.call(x); }
return typeof list;
