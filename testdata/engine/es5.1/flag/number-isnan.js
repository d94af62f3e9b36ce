// want: Number.isNaN
return Number.isNaN(1);
