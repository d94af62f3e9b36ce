// want: default parameters
function page(n, size = 20) { return n * size; }
return page(2);
