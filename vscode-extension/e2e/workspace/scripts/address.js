// Looks up an address (scriptService). It and route.js call geo, which
// config/application.yml defines: the end-to-end test expects the
// CodeLens "2 scripts call this" above that entry, and both scripts among
// the references it opens.
var address = api.rest.v1.get("geo", { pathParams: ["search"], queryParams: { q: "Main Street 1" } }, {});
return address.body;
