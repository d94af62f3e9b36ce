// want: String.prototype.normalize
return "a".normalize();
