const ids = [1, 2];
return ids.includes(2) && 2 ** 3 === 8;
