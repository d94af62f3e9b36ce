// want: Math.imul
return Math.imul(2, 3);
