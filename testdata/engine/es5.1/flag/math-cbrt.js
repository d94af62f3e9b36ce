// want: Math.cbrt
return Math.cbrt(2, 3);
