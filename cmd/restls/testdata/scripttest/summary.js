var c = api.rest.v1.get("crm-customers", { pathParams: [context.input.id] }, {}).body;
if (c.blocked) {
  throw new TypeError("customer " + c.id + " is blocked");
}
console.log("customer", c.name);
return { name: c.name, tags: c.tags };
