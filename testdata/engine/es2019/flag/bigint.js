// want: BigInt
return BigInt(10) > 1;
