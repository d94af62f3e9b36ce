// want: arrow functions
var f = function (xs) { return xs.map(x => x * 2); };
return f([1, 2]);
