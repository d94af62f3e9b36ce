// want: Array.prototype.findIndex
return [1, 2].findIndex(function (x) { return x === 2; });
