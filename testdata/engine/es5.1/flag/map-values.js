// want: Map.prototype.values
function list(x) { return Map.prototype.values.call(x); }
return typeof list;
