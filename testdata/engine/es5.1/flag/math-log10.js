// want: Math.log10
return Math.log10(2, 3);
