// want: Uint8Array
return Uint8Array.length;
