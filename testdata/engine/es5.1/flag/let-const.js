// want: let and const declarations
const limit = 3;
var out = [];
for (var i = 0; i < limit; i++) { out.push(i); }
return out;
