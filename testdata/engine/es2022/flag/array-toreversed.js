// want: Array.prototype.toReversed
return [2, 1].toReversed();
