// want: String.prototype.replaceAll
return "a-b-c".replaceAll("-", "/");
