// want: Object.assign
return Object.assign({}, { a: 1 });
