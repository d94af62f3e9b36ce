// want: Array.prototype.findLast
return [1, 2].findLast(x => x < 2);
