// want: Math.hypot
return Math.hypot(2, 3);
