// want: Math.clz32
return Math.clz32(2, 3);
