// want: BigInt literals (123n)
return typeof 10n;
