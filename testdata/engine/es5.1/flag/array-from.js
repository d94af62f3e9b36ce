// want: Array.from
return Array.from("ab");
