// want: Object.fromEntries
return Object.fromEntries([["a", 1]]);
