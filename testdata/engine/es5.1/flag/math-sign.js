// want: Math.sign
return Math.sign(2, 3);
