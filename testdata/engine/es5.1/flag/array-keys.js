// want: Array.prototype.keys
return typeof [1].keys();
