// want: Array.prototype.at
const items = [1, 2, 3];
return items.at(-1);
