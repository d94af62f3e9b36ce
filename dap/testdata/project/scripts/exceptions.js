// Exceptions to stop at, one of each kind restls dap's filters tell apart.
function lookup(id) {
  return api.rest.v1.get("orders", {pathParams: ["orders", id]}, {});
}
var seen = [];
try {
  lookup("missing"); // 404: the contract's exception, caught
} catch (e) {
  seen.push(e.status.code);
}
try {
  throw new Error("thrown and caught");
} catch (e) {
  seen.push(e.message);
}
try {
  null.x; // a TypeError the language raises, caught
} catch (e) {
  seen.push(e.name);
}
var r = lookup("none"); // no fixture: a RestClientError no catch takes
return seen;
