// want: U+2028 or U+2029 in a string literal
return "a b".length;
