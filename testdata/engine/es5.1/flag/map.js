// want: Map
var seen = new Map();
return seen;
