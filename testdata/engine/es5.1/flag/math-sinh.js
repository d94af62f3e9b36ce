// want: Math.sinh
return Math.sinh(2, 3);
