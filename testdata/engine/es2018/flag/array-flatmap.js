// want: Array.prototype.flatMap
return [1, 2].flatMap(x => [x, x]);
