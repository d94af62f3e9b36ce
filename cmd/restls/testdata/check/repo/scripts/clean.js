// No problems.
var c = api.rest.v1.get("crm", { pathParams: ["customers", "1"] }, {}).body;
return c.name;
