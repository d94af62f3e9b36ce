package lsp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/uri"

	"github.com/restls/restls/input"
	"github.com/restls/restls/workspace"
)

// auto is the value of runScript's mock and record arguments that means
// the fixture file beside the script.
const auto = "auto"

// errFixtureArg says what the mock and record arguments take.
var errFixtureArg = argError{errors.New(`mock is a file path, "auto" or false; record is a file path, "auto" or false`)}

// FixtureArg is runScript's mock or record argument: on the wire a file
// path, "auto", or false (null and absent also mean none, which is "").
type FixtureArg string

// UnmarshalJSON reads false, null or a non-empty string.
func (f *FixtureArg) UnmarshalJSON(raw []byte) error {
	switch string(raw) {
	case "null", "false":
		*f = ""
		return nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || s == "" {
		return errFixtureArg
	}
	*f = FixtureArg(s)
	return nil
}

// MarshalJSON writes none as false.
func (f FixtureArg) MarshalJSON() ([]byte, error) {
	if f == "" {
		return []byte("false"), nil
	}
	return json.Marshal(string(f))
}

// fixtureFiles turns runScript's mock and record arguments into the files
// the run reads and writes, for the document at script (a file system
// path, "" for a document that is not a file). Relative paths resolve
// against the script's directory. mock "auto" is the file beside the
// script when it exists and none otherwise; record "auto" is that file,
// or script.mock.yaml when there is none yet.
func fixtureFiles(script string, m, r FixtureArg) (mockFile, recordFile string, err error) {
	if m == auto {
		if script != "" {
			mockFile = workspace.MockFileBeside(script)
		}
	} else if m != "" {
		if mockFile, err = fixturePath(script, string(m), "mock"); err != nil {
			return "", "", err
		}
		if st, err := os.Stat(mockFile); err != nil || !st.Mode().IsRegular() {
			return "", "", fmt.Errorf("the mock file %s does not exist: record it first (record: %q) or write it by hand", mockFile, auto)
		}
	}
	if r == auto {
		if script == "" {
			return "", "", errors.New(`record "auto" writes the fixtures beside the script: save the script to a file first, or give record a file path`)
		}
		if recordFile = workspace.MockFileBeside(script); recordFile == "" {
			recordFile = workspace.MockCandidates(script)[0]
			// A link out of the repository is neither read back nor
			// replaced by the recording.
			if err := workspace.FixtureWritable(script, recordFile); errors.Is(err, input.ErrOutside) || errors.Is(err, input.ErrDanglingLink) {
				return "", "", fmt.Errorf("record %q: %s: %v", auto, recordFile, err)
			}
		}
	} else if r != "" {
		if recordFile, err = fixturePath(script, string(r), "record"); err != nil {
			return "", "", err
		}
	}
	return mockFile, recordFile, nil
}

// fixturePath resolves a mock or record path and checks it names a
// fixture file, so that a typo cannot make a run overwrite the script.
func fixturePath(script, p, arg string) (string, error) {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".yaml", ".yml", ".json":
	default:
		return "", fmt.Errorf("%s %s: a fixture file ends in .yaml, .yml or .json", arg, p)
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	if script == "" {
		return "", fmt.Errorf("%s %s is relative to the script's directory, and this document is not a file: give an absolute path or save the script first", arg, p)
	}
	return filepath.Join(filepath.Dir(script), p), nil
}

// scriptPath is the file system path of the document at u, or "" when it
// is not a file.
func scriptPath(u uri.URI, path string) string {
	if !u.IsFile() {
		return ""
	}
	return path
}
