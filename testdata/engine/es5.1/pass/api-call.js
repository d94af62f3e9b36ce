try {
  var r = api.rest.v1.get("crm", { pathParams: ["customers"] }, {}, {});
  return r.body;
} catch (e) {
  return e.status ? e.status.code : String(e);
}
