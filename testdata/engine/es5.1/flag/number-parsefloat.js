// want: Number.parseFloat
return Number.parseFloat("1.5");
