function* ids() { yield 1; }
for (const id of ids()) { return id; }
