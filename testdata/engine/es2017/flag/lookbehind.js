// want: lookbehind assertions
return /(?<=\$)\d+/.exec("$12")[0];
