var hasMap = typeof Map !== "undefined";
var entries = Object.entries ? Object.entries({ a: 1 }) : [["a", 1]];
return hasMap && entries.length;
