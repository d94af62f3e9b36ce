// want: Math.log2
return Math.log2(2, 3);
