// want: Number.isSafeInteger
return Number.isSafeInteger(1);
