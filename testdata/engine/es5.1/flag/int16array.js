// want: Int16Array
return Int16Array.length;
