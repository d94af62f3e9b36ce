var r = api.rest.v1.get("crm", {pathParams: [context.input.id]}, {});
return {name: r.body.name};
