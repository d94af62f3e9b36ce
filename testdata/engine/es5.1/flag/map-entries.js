// want: Map.prototype.entries
function list(x) { return Map.prototype.entries.call(x); }
return typeof list;
