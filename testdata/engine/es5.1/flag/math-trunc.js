// want: Math.trunc
return Math.trunc(2, 3);
