// want: Math.asinh
return Math.asinh(2, 3);
