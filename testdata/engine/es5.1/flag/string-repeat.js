// want: String.prototype.repeat
return "ab".repeat(2);
