function has(xs, x) { return xs.includes(x); }
return has("abc", "b");
