// want: BigInt64Array
return new BigInt64Array(2).length;
