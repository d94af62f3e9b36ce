var res = api.rest.v1.get("order", {pathParams: ["orders", context.input.id]}, {});
return res.body.status;
