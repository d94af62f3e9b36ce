// want: Array.prototype.find
var items = [{ id: 1 }, { id: 2 }];
return items.find(function (x) { return x.id === 2; });
