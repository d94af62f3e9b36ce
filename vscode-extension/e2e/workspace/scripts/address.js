// Looks up an address (scriptService). It and route.js call geo, which
// config/application.yml defines: its CodeLens says "2 scripts call this",
// and the end-to-end test renames the id here (F2) across both scripts and
// the configuration.
var address = api.rest.v1.get("geo", { pathParams: ["search"], queryParams: { q: "Main Street 1" } }, {});
return address.body;
