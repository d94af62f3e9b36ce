// want: spread in calls and array literals
var a = [1, 2];
return Math.max.apply(null, [0, ...a]);
