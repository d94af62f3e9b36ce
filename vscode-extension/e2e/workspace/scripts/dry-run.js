// Reads an order from the loopback mock the end-to-end test starts, then
// asks for one that does not exist (docs/api.md#errors: a status outside 2XX throws).
// X-Partner-Api-Key is a secret header: the preview shows it masked.
var res = api.rest.v1.get("mock-orders", { pathParams: ["42"] }, { Accept: "application/json", "X-Partner-Api-Key": "e2e-partner-secret" });
console.log("order", res.body.id, "for", res.body.customer.name);

var missing = null;
try {
  api.rest.v1.get("mock-orders", { pathParams: ["missing"] }, {});
} catch (e) {
  if (e.status && e.status.code) {
    missing = e.status.code;
  } else {
    throw e;
  }
}

return { id: res.body.id, customer: res.body.customer.name, items: res.body.items.length, missing: missing };
