// want: Array.prototype.findLastIndex
return [1, 2].findLastIndex(x => x < 2);
