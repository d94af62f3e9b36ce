// want: Proxy
return new Proxy({}, {});
