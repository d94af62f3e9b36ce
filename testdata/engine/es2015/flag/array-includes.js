// want: Array.prototype.includes
const ids = [1, 2, 3];
return ids.includes(2);
