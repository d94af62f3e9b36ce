// Looks up a customer's orders in the CRM (scriptService).
var customer = api.rest.v1.get("crm-customers", { pathParams: ["42"] }, {});
