// want: ArrayBuffer
return new ArrayBuffer(8).byteLength;
