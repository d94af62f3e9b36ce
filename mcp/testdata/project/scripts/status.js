// The status of an order: the references of serviceId orders.
function status(id) {
  var res = api.rest.v1.get("orders", {pathParams: ["orders", id]}, {});
  return res.body.status;
}
return status(context.input.id);
