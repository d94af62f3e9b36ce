// want: Array.prototype.with
return [2, 1].with(0, 5);
