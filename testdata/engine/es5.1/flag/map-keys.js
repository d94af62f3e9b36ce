// want: Map.prototype.keys
function list(x) { return Map.prototype.keys.call(x); }
return typeof list;
