const answer = { body: null };
return [answer.body?.items ?? [], typeof globalThis, typeof 1n];
