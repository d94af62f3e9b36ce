// want: Array.prototype.fill
return new Array(3).fill(0);
