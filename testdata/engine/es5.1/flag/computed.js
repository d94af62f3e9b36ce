// want: computed property names
var key = "a";
var o = { [key]: 1 };
return o.a;
