const a = { x: 1 };
const { x, ...rest } = { ...a, y: 2 };
return /(?<n>\d)/s.exec("1").groups.n + x + Object.keys(rest);
