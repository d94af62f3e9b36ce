// want: Array.prototype.copyWithin
return [1, 2, 3].copyWithin(0, 1);
