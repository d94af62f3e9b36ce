package config

import "testing"

// BenchmarkKindOf: the kind of ordinary script paths from an ordinary
// scriptKinds map (a name glob, "**/dir/**", an absolute glob, a deep
// relative one), most files falling through to the default; the glob
// matcher is most of the work. docs/decisions.md quotes it.
func BenchmarkKindOf(b *testing.B) {
	m := KindMap{
		{Glob: mustGlob(b, "*.validator.js"), Kind: ValidationScript},
		{Glob: mustGlob(b, "**/tasks/**"), Kind: ScriptTask},
		{Glob: mustGlob(b, "/srv/app/jobs/*.js"), Kind: ScriptTask},
		{Glob: mustGlob(b, "src/**/handlers/*.js"), Kind: ScriptService},
	}
	files := []string{
		"/home/dev/project/src/forms/customer.validator.js",
		"/home/dev/project/src/tasks/nightly/export.js",
		"/srv/app/jobs/cleanup.js",
		"/home/dev/project/src/api/v2/handlers/orders.js",
		"/home/dev/project/src/api/v2/lib/util/strings.js",
		"/home/dev/project/scripts/a.js",
	}
	for b.Loop() {
		for _, f := range files {
			_ = m.KindOf(f, "")
		}
	}
}
