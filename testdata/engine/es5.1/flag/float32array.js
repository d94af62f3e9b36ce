// want: Float32Array
return Float32Array.length;
