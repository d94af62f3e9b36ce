// want: tagged templates
function tag(strings) { return strings.length; }
return tag`a${1}b`;
