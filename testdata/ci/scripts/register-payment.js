// Registers a payment for an order and returns the payment's id; a
// refused payment (402) becomes a message for the form.
var order = context.input.order;
try {
  var res = api.rest.v1.post("payments", { pathParams: ["payments"] }, {},
    { orderId: order.id, amount: order.amount, currency: "EUR" });
  return { paymentId: res.body.id };
} catch (e) {
  if (e.status && e.status.code === 402) {
    return { refused: true, reason: e.body };
  }
  throw e;
}
