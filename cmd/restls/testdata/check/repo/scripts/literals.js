// Literals the dry run rejects are errors before it runs (issue 14).
var c = api.rest.v1.get("crm", { pathParams: ["customers", 42] }, {});
return c.body;
