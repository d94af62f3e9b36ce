// want: Object.getOwnPropertyDescriptors
return Object.getOwnPropertyDescriptors({ a: 1 });
