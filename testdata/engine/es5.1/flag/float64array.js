// want: Float64Array
return Float64Array.length;
