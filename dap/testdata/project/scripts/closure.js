// A closure, to show its scopes.
function counter(start) {
  var count = start;
  return function step(by) {
    let next = count + by;
    count = next;
    return next;
  };
}
var c = counter(context.input.start);
return c(2);
