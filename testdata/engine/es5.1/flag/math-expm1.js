// want: Math.expm1
return Math.expm1(2, 3);
