// want: destructuring
var answer = { body: { id: 1, name: "a" } };
var { id, name } = answer.body;
return id + name;
