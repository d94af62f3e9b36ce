// want: globalThis
return typeof globalThis.JSON;
