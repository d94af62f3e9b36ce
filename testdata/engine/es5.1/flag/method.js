// want: shorthand methods
var o = { total(x) { return x; } };
return o.total(1);
