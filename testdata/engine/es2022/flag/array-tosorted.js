// want: Array.prototype.toSorted
return [2, 1].toSorted();
