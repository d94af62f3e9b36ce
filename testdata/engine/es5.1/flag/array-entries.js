// want: Array.prototype.entries
return typeof [1].entries();
