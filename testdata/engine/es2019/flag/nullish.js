// want: nullish coalescing (??)
const limit = null;
return limit ?? 20;
