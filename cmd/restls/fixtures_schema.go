package main

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/restls/restls/input"
	"github.com/restls/restls/openapi"
	"github.com/restls/restls/workspace"
)

// Bounds of the search for fixture files when none is named.
const (
	schemaMaxFiles = 1000 // fixture files read
)

// runFixturesSchema is `restls fixtures schema SERVICEID [FILE...]`.
func runFixturesSchema(env *cliEnv, args []string) int {
	fset := newFlagSet(env, "fixtures schema", "SERVICEID [FIXTURE_FILE...]", `
Writes on stdout, as an OpenAPI 3.0 document (YAML), the shapes of the
answers recorded for SERVICEID in fixture files (the format of restls run
--mock, which --record writes): one operation per recorded method and
path, a "*" segment a path parameter; the 2XX answers of one call merged
(a key some answers lacked is optional, differing types a oneOf, the
first value seen the example); the other statuses listed. Review it,
then attach it as the service's description (restls.yaml openapi, or
--openapi SERVICEID=FILE): the hints then check against it what the
recordings only suggest.

Without FIXTURE_FILE, the fixture files beside the scripts under the
current directory (*.mock.yaml, *.mock.json; hidden directories and
node_modules left out) are read.

Exit status: 0 when the files record answers of SERVICEID; 1 when they
record none; 2 for usage errors and files that cannot be read.`)
	pos, rc := parseInterleaved(env, fset, args)
	if rc >= 0 {
		return rc
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(env.stderr, "restls fixtures schema: "+format+"\n", a...)
		return 2
	}
	if len(pos) == 0 || pos[0] == "" {
		return usageErr("name the serviceId: restls fixtures schema SERVICEID [FIXTURE_FILE...]")
	}
	id, files := pos[0], pos[1:]
	if len(files) == 0 {
		found, err := findFixtureFiles(".")
		if err != nil {
			return usageErr("%v", err)
		}
		files = found
	}
	var idxs []*openapi.Index
	for _, f := range files {
		data, err := input.ReadFile(f, input.Fixtures)
		if err != nil {
			return usageErr("cannot read %s", readErr(f, err))
		}
		idx, err := openapi.BuildRecorded(filepath.ToSlash(f), data)
		if err != nil {
			return usageErr("%s: %v", f, err)
		}
		idxs = append(idxs, idx)
	}
	out, n := openapi.RecordedFragment(id, idxs, func(s string) string { return s })
	if n == 0 {
		fmt.Fprintf(env.stderr, "restls fixtures schema: no answer of serviceId %q is recorded in %d fixture file(s): record one with restls run --record FILE, or name the files\n", id, len(files))
		return 1
	}
	env.stdout.Write(out)
	return 0
}

// The bounds of findFixtureFiles's walk (input's, lowered by tests).
var schemaWalkEntries, schemaWalkDepth = input.MaxWalkEntries, input.MaxWalkDepth

// findFixtureFiles lists the fixture files under root, sorted, within
// every project walk's bounds (input.WalkBound) and schemaMaxFiles.
func findFixtureFiles(root string) ([]string, error) {
	var out []string
	bound := input.NewWalkBound()
	bound.MaxEntries, bound.MaxDepth = schemaWalkEntries, schemaWalkDepth
	bound.Root(root)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: left out
		}
		name := d.Name()
		if d.IsDir() && p != root && input.SkipDir(name) {
			return filepath.SkipDir // not counted, as in the other walks
		}
		if err := bound.Visit(p, d.IsDir()); err != nil {
			return fmt.Errorf("%v, where restls stops looking for fixture files: name the fixture files", err)
		}
		if d.IsDir() {
			return nil
		}
		for _, suf := range workspace.MockSuffixes {
			if strings.HasSuffix(name, suf) && d.Type().IsRegular() {
				if len(out) == schemaMaxFiles {
					return fmt.Errorf("more than %d fixture files under %s: name the files", schemaMaxFiles, root)
				}
				out = append(out, p)
			}
		}
		return nil
	})
	return out, err
}
