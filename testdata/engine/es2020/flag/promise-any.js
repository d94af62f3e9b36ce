// want: Promise.any
return Promise.any([1]) !== null;
