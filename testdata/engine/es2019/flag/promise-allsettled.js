// want: Promise.allSettled
return Promise.allSettled([]) !== null;
