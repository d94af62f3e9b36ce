// want: WeakSet
return new WeakSet();
