// want: Array.prototype.toSpliced
return [2, 1].toSpliced(0, 1);
