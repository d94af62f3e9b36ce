var id = context.input.id;
var r;
try {
  r = api.rest.v1.get("crm-customers", { pathParams: [id] }, {});
} catch (e) {
  if (e.status && e.status.code === 404) {
    return { missing: id };
  }
  throw e;
}
var name = r.body.name || "unknown";
if (r.body.blocked) {
  api.rest.v1.post("crm-customers", { pathParams: [id, "unblock"] }, {}, {});
  return { blocked: true };
}
return { name: name };
