// want: Object.values
return Object.values({ a: 1 });
