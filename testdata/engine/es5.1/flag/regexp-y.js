// want: regular expression flags y and u
return /a/y.test("a");
