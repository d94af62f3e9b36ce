// Customer summary: what a form shows next to a customer number.
// A script is a function body: the top-level return is its result.
//
//   restls run --config-root testdata/config \
//     --mock testdata/mocks/customer-summary.yaml testdata/scripts/customer-summary.js
var id = String(context.input.customerId || "42");

var customer = api.rest.v1.get("crm-customers", { pathParams: [id] }, {}).body;
console.log("customer", customer.name);

var orders = api.rest.v1.get("crm-orders", { queryParams: { customerId: id, status: "open" } }, {},
  { readTimeout: 5000 }).body;

// docs/api.md#errors: a failed call throws {status, body}; anything else is foreign.
var address = null;
try {
  address = api.rest.v1.get("geo", { pathParams: ["addresses"], queryParams: { q: customer.address } }, {}).body;
} catch (e) {
  if (e.status && e.status.code) {
    console.warn("address lookup failed:", e.status.code, e.status.message);
  } else {
    throw e;
  }
}

var balance = api.rest.v1.get("payments", { pathParams: ["accounts", id, "balance"] }, {}).body;

return {
  customer: customer.name,
  openOrders: orders.length,
  total: orders.reduce(function (sum, o) { return sum + o.amount; }, 0),
  address: address ? address.formatted : null,
  balance: balance.amount + " " + balance.currency
};
