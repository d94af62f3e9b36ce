// want: Math.fround
return Math.fround(2, 3);
