// want: Number.isFinite
return Number.isFinite(1);
