// want: async functions and await
async function load() { return await 1; }
return typeof load;
