package jslevel

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, name := range Names() {
		l, err := Parse(name)
		if err != nil || l.String() != name {
			t.Errorf("Parse(%q) = %v, %v", name, l, err)
		}
	}
	for in, want := range map[string]string{
		"ES2015": `did you mean "es2015"?`,
		"es6":    `did you mean "es2015"?`,
		"2017":   `did you mean "es2017"?`,
		"es5":    `did you mean "es5.1"?`,
		"esnext": `did you mean "latest"?`,
		"es3":    "the levels are es5.1, es2015",
	} {
		_, err := Parse(in)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "latest") {
			t.Errorf("Parse(%q) = %v, want an error saying %s and listing the levels", in, err, want)
		}
	}
}

func TestAdmits(t *testing.T) {
	if !Latest.Admits(ES2025) || !ES2016.Admits(ES2015) || ES2015.Admits(ES2016) || !ES5_1.Admits(ES5_1) {
		t.Error("Admits is wrong")
	}
}

// TestTrustedAndDeclared: what the script declares, assigns or tests for
// is its own business; a chain rooted at the platform's api is not a
// builtin.
func TestTrustedAndDeclared(t *testing.T) {
	for _, src := range []string{
		"var Map = function () {}; return new Map();",
		"if (typeof Promise === 'undefined') { return 1; } return Promise.resolve(1);",
		"Object.entries = Object.entries || function (o) { return []; }; return Object.entries({});",
		"Object.defineProperty(String.prototype, 'padStart', { value: function () { return ''; } }); return 'a'.padStart(2);",
		"return api.rest.v1.get('crm', {}, {}, {}).body.values;",
		"return Object.keys({}).length;",
		"var o = { includes: 1 }; return o.includes;",
		"return o['includes'](1);",
	} {
		if uses := Check(src, ES5_1); len(uses) > 0 {
			t.Errorf("%s: flagged %s", src, uses[0].Message(ES5_1))
		}
	}
}
