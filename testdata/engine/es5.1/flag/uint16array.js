// want: Uint16Array
return Uint16Array.length;
