// want: Object.entries
const o = { a: 1 };
return Object.entries(o);
