var answer = { body: { items: [{ id: 1 }, { id: 2 }] } };
var ids = [];
for (var i = 0; i < answer.body.items.length; i++) {
  ids.push(answer.body.items[i].id);
}
var byId = {};
ids.forEach(function (id) { byId["c" + id] = true; });
return { ids: ids, keys: Object.keys(byId), text: JSON.stringify(byId).indexOf("c1") !== -1 };
