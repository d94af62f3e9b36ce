// want: String.prototype.trimEnd
return "a ".trimEnd();
