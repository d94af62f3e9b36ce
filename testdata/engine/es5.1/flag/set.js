// want: Set
return new Set([1, 1]);
