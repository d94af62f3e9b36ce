// want: String.prototype.padStart
function pad(x) { return x.padStart(3, "0"); }
return typeof pad;
