// One error and one warning per line below.
var a = api.rest.v1.get("crn", {}, {});
var b = api.rest.v1.get("crm", {}, {}, { name: "x" });
var h = api.rest.v1.get("crm", {}, { Authorization: "Basic abc" });
var t = api.rest.v1.get("legacy", {}, {}, { readTimeout: 99999 });
var ü = api.rest.v1.get("ünknown", {}, {});
return [a, b, h, t, ü];
