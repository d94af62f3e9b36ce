// A script to step through: a call, a console line, a function.
function total(items) {
  var sum = 0;
  for (var i = 0; i < items.length; i++) {
    sum += items[i].price;
  }
  return sum;
}
var res = api.rest.v1.get("orders", {pathParams: ["orders", context.input.id]}, {});
console.log("order " + res.body.id);
var t = total(res.body.items);

return {status: res.body.status, total: t};
