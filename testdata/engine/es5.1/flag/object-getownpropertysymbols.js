// want: Object.getOwnPropertySymbols
return Object.getOwnPropertySymbols({}).length;
