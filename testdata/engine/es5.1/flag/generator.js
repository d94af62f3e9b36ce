// want: generators
function* ids() { yield 1; }
return typeof ids;
