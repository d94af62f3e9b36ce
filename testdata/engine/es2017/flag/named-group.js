// want: named capture groups
return /(?<year>\d{4})/.exec("2024")[1];
