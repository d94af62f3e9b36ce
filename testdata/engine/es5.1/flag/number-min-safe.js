// want: Number.MIN_SAFE_INTEGER
return Number.MIN_SAFE_INTEGER;
