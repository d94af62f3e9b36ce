// want: String.prototype.codePointAt
return "a".codePointAt(0);
