return [2, 1].toSorted().toReversed();
