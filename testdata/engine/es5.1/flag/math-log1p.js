// want: Math.log1p
return Math.log1p(2, 3);
