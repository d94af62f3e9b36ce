return new Set([1]).union(new Set([2])).size;
