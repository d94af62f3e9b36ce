// want: logical assignment (&&=, ||=, ??=)
let limit = null;
limit ??= 20;
return limit;
