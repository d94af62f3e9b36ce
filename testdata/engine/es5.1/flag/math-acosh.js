// want: Math.acosh
return Math.acosh(2, 3);
