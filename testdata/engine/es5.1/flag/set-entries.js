// want: Set.prototype.entries
function list(x) { return Set.prototype.entries.call(x); }
return typeof list;
