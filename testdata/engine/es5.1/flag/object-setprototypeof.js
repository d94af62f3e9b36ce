// want: Object.setPrototypeOf
return Object.setPrototypeOf({}, null);
