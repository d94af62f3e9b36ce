let limit = null;
limit ??= 1_000;
return "a-b".replaceAll("-", "/") + limit;
