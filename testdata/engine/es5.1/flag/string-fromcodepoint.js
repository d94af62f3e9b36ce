// want: String.fromCodePoint
return String.fromCodePoint(65);
