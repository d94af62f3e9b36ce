// want: for...of loops
var total = 0;
for (var x of [1, 2, 3]) { total += x; }
return total;
