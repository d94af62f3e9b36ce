// want: new.target
function C() { return new.target === undefined; }
return C();
