// want: Array.prototype.flat
return [[1], [2]].flat();
