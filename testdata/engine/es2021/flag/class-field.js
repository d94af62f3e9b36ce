// want: class fields
class Page { size = 20; }
return new Page().size;
