// want: regular expression flag s (dotAll)
return /a.b/s.test("a\nb");
