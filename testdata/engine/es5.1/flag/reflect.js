// want: Reflect
return Reflect.ownKeys({ a: 1 });
