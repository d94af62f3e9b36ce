// want: code point escapes (\u{...})
return "\u{1F600}".length;
