package workspace

// The bounds of every walk of a project tree that looks for files by
// name (restls test's test files, restls fixtures schema's fixture
// files): what a repository holds must not make a surface walk a home
// directory or a vendored tree whole. A walk that reaches one stops with
// an error that names it and says to name the files or a directory.
const (
	// MaxWalkEntries is how many files and directories one walk looks at.
	MaxWalkEntries = 200_000
	// MaxWalkDepth is how many directories deep below its root a walk
	// goes.
	MaxWalkDepth = 64
)
