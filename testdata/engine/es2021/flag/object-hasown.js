// want: Object.hasOwn
return Object.hasOwn({ a: 1 }, "a");
