// want: exponent operator (**)
let square = 3 ** 2;
return square;
