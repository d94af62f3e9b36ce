// want: binary and octal literals (0b, 0o)
return 0b1010 + 0x10;
