// Finds the route between two places (scriptService); calls geo as
// address.js does.
var route = api.rest.v1.get("geo", { pathParams: ["route"], queryParams: { from: "A", to: "B" } }, {});
return route.body;
