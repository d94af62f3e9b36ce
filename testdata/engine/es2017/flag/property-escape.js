// want: Unicode property escapes (\p{...})
return /\p{L}+/u.test("a");
