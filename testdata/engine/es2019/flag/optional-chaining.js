// want: optional chaining (?.)
const answer = { body: null };
return answer.body?.items;
