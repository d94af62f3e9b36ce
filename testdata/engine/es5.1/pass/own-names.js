function Map() { this.items = {}; }
var m = new Map();
var Promise = { resolve: function (x) { return x; } };
return Promise.resolve(m);
