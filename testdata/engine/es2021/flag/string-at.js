// want: String.prototype.at
return "abc".at(-1);
