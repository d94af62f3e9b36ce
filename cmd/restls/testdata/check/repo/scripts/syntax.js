var x = api.rest.v1.get("crm", {}, {};
return x;
