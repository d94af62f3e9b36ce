// want: String.prototype.endsWith
return "abc".endsWith("c");
