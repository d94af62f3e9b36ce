// want: template literals
var id = "42";
return "/customers/" + id + `?expand=orders`;
