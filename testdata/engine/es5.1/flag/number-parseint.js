// want: Number.parseInt
return Number.parseInt("1");
