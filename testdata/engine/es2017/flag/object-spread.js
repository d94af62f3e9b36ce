// want: object rest and spread properties
const base = { a: 1 };
return { ...base, b: 2 };
