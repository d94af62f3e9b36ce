// want: Int8Array
return Int8Array.length;
