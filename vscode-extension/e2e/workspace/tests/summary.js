// A customer's name and tags (scriptService), tested by summary.test.yaml
// in the Testing view.
var c = api.rest.v1.get("crm-customers", { pathParams: [context.input.id] }, {}).body;
return { name: c.name, tags: c.tags };
