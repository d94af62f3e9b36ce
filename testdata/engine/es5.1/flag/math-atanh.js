// want: Math.atanh
return Math.atanh(2, 3);
