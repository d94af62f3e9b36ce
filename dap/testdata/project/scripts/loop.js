// A loop for conditions, hit counts and logpoints.
var total = 0;
for (var i = 0; i < 10; i++) {
  total += i;
  var square = i * i;
  var half = i / 2;
}
return total;
