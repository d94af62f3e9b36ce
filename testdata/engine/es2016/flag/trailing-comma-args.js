// want: trailing commas in parameter and argument lists
return Math.max(
  1,
  2, // the last
);
