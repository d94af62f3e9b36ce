// want: Math.cosh
return Math.cosh(2, 3);
