// want: optional catch binding
try {
  JSON.parse("{");
} catch {
  return "bad";
}
