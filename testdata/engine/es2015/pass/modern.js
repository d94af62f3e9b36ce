const items = [{ id: 1 }, { id: 2 }];
let found = items.find(x => x.id === 2);
const { id } = found;
class Page { constructor(n) { this.n = n; } }
const label = `id ${id}`;
const m = new Map([[id, new Page(1)]]);
return [label, m.size, Object.assign({}, { a: 1 }), "v1".includes("v"), [...items].length];
