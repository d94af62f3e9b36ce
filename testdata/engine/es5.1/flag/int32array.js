// want: Int32Array
return Int32Array.length;
