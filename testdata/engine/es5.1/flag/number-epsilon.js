// want: Number.EPSILON
return Number.EPSILON > 0;
