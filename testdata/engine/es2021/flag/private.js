// want: private fields and methods (#name)
class Counter {
  #step() { return 1; }
  next() { return this.#step(); }
}
return new Counter().next();
