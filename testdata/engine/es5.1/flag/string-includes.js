// want: String.prototype.includes
var path = "/v1/customers";
return path.includes("v1");
