// Open orders of a customer, with their total: what a form shows next to
// a customer number. Tested by tests/open-orders.test.yaml.
var id = String(context.input.customerId || "");
if (!id) {
  throw new Error("customerId is required");
}
var customer = api.rest.v1.get("crm-customers", { pathParams: [id] }, {}).body;
var orders = api.rest.v1.get("crm-orders", { queryParams: { customerId: id, status: "open" } }, {}).body;
console.log("orders of", customer.name, orders.length);
return {
  customer: customer.name,
  openOrders: orders.length,
  total: orders.reduce(function (sum, o) { return sum + o.amount; }, 0)
};
