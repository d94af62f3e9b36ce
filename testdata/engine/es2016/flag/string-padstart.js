// want: String.prototype.padStart
const id = String(7);
return id.padStart(3, "0");
