package workspace

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/restls/restls/input"
)

// TestFileOf is the test file beside script that the editor adds cases
// to (the fault quick fix): NAME.test.yaml for NAME.js.
func TestFileOf(script string) string {
	return strings.TrimSuffix(script, filepath.Ext(script)) + TestFileSuffix
}

// TestFileText reads the test file of script (TestFileOf), which must
// stay inside FixtureRoot with its links followed: its text, nil when it
// does not exist yet.
func TestFileText(script, file string) ([]byte, error) {
	data, err := input.ReadFileIn(FixtureRoot(script), file, input.TestFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// TestFileWritable says whether file, the test file of script, may be
// created or edited: nothing is there, or it stays inside FixtureRoot
// with its links followed (as FixtureWritable).
func TestFileWritable(script, file string) error {
	return input.WritableIn(FixtureRoot(script), file, input.TestFile)
}
