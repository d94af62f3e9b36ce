// want: exponent operator (**)
let x = 3;
x **= 2;
return x;
