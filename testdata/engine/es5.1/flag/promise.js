// want: Promise
return typeof Promise.resolve;
