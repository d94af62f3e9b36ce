async function load() { return 1; }
const pad = String(1).padStart(3, "0");
return [pad, Object.entries({ a: 1 }), typeof load, Math.max(1, 2,)];
