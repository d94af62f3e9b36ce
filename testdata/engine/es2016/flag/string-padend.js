// want: String.prototype.padEnd
return "7".padEnd(3, "0");
