// want: DataView
var v = DataView;
return typeof v;
