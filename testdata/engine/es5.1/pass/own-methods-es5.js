var list = { values: [1, 2], total: function () { return 3; } };
return list.values.length + list.total() + Object.keys(list).length;
