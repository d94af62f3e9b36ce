return [[2, 1].toSorted(), [1, 2].findLast(x => x > 0), [1].with(0, 2)];
