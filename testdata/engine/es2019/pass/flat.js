try { JSON.parse("{"); } catch { }
return [[1], [2]].flat().concat(Object.fromEntries([["a", 1]]).a, " x".trimStart());
