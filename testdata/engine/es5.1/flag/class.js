// want: classes
var Customer = class {};
return typeof Customer;
