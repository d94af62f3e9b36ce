// want: BigUint64Array
return new BigUint64Array(2).length;
