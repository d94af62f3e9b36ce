// want: Promise.prototype.finally
const p = Promise.resolve(1);
return typeof p.finally(() => 1);
