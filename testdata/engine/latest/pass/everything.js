class A { #x = 1; static { } }
return [1_000, 2 ** 3, new Set([1]).union(new Set([2])).size, [1].toSorted(), null ?? 1];
