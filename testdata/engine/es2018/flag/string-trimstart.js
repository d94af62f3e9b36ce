// want: String.prototype.trimStart
return " a".trimStart();
