// want: Math.tanh
return Math.tanh(2, 3);
