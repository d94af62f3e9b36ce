// want: Number.isInteger
return Number.isInteger(1);
