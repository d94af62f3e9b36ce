// want: Symbol
return String(Symbol("x"));
