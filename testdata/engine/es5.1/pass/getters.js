var o = { get size() { return 1; }, "quoted-key": 2, 3: 4 };
return o.size;
