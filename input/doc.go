// Package input is the one home for reading, matching and decoding what a
// user, a repository or a web page sends restls: every surface (the
// language server, restls check, test and run, the designer backend) reads
// files, matches globs and decodes YAML through it, never its own way, so
// that a new surface cannot reopen a hole an older one closed.
//
//   - read.go: the bounded reader. Regular files only, opened without
//     blocking, a size limit per kind of file, symbolic links resolved and,
//     for files a repository names, kept inside its root. Writes that a
//     repository steers (--update, --record) never follow a link out of it.
//   - glob.go: the one glob matcher, linear in pattern times path, for
//     kind maps, fixture paths, include and exclude lists and
//     .gitignore-style patterns.
//   - yaml.go: the one YAML decode, with a budget on alias expansion and
//     nesting, for configuration, fixtures, mocks and test files.
//   - text.go: the way back out: untrusted text (file names, serviceIds,
//     messages, response bodies) made safe to print on a terminal, every
//     control character escaped.
//
// input imports no package of restls: every package may import it.
package input
