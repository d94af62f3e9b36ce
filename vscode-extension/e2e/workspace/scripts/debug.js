// The debugger's end-to-end script (e2e/debug.mjs): it stops on the line
// that reads the customer's name, then steps over it.
var id = 42;
var order = api.rest.v1.get("mock-orders", { pathParams: [String(id)] }, {});
var customer = order.body.customer.name;
var qty = 0;
for (var i = 0; i < order.body.items.length; i++) {
  qty += order.body.items[i].qty;
}
return { customer: customer, qty: qty };
