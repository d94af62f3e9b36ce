// want: rest parameters
function sum(...xs) { return xs.length; }
return sum(1, 2);
