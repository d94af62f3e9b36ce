// want: async functions and await
const load = async () => 1;
return typeof load;
