// want: Array.prototype.keys
function names(m) { return m.keys(); }
return typeof names;
