class Counter {
  #n = 0;
  static ready = true;
  next() { return ++this.#n; }
}
return [new Counter().next(), [1, 2].at(-1), Object.hasOwn({ a: 1 }, "a")];
