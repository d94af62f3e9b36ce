// Reads an order from the loopback shop of the end-to-end test, whose
// answer breaks the shop's API description (openapi/shop.yaml, named by
// the restls.openapi setting): the preview shows "? contract" beside the
// call. Run twice, its answers differ, which "Compare the Last Dry Run
// with the Previous One" shows.
var order = api.rest.v1.get("mock-shop", { pathParams: ["orders", "7"] }, { Accept: "application/json" });
return { id: order.body.id, state: order.body.state };
