// want: String.prototype.matchAll
const text = "a1b2";
return typeof text.matchAll(/\d/g);
