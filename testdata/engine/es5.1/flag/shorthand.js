// want: shorthand properties
var id = 1;
var payload = { id };
return payload;
