// want: Uint8ClampedArray
return Uint8ClampedArray.length;
