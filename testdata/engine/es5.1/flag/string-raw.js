// want: String.raw
var raw = String.raw;
return typeof raw;
