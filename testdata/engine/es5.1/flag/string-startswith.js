// want: String.prototype.startsWith
return "abc".startsWith("a");
