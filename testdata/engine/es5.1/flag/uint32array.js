// want: Uint32Array
return Uint32Array.length;
