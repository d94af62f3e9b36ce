// want: trailing commas in parameter and argument lists
function f(a, b,) { return a + b; }
return f(1, 2);
