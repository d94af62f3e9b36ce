// want: Array.of
return Array.of(1, 2);
