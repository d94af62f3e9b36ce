// want: Array.prototype.find
function first(answer) { return answer.body.items.find(function (x) { return x.ok; }); }
return typeof first;
