// want: object rest and spread properties
const { a, ...others } = { a: 1, b: 2 };
return others;
