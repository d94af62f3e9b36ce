// Reads one order from the loopback mock the end-to-end test starts.
var res = api.rest.v1.get("mock-orders", { pathParams: ["42"] }, { Accept: "application/json" });
var order = { id: res.body.id, customer: res.body.customer.name, items: res.body.items.length };
order;
