// want: Array.prototype.includes
const tags = "a,b".split(",");
return tags.includes("b");
