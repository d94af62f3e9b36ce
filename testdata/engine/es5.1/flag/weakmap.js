// want: WeakMap
return new WeakMap();
