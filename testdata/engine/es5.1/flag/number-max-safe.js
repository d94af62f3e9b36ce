// want: Number.MAX_SAFE_INTEGER
return Number.MAX_SAFE_INTEGER;
