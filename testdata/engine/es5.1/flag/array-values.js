// want: Array.prototype.values
return typeof [1].values();
