package check

import (
	"context"
	"path/filepath"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
	"github.com/restls/restls/workspace"
)

// fixtureGlobs find the files whose fixtures are checked against the
// descriptions: the fixture files beside scripts (workspace.MockSuffixes)
// and the test files, whose inline fixtures are.
func fixtureGlobs() []string {
	out := []string{"**/*" + workspace.TestFileSuffix}
	for _, s := range workspace.MockSuffixes {
		out = append(out, "**/*"+s)
	}
	return out
}

func isFixtureFile(p string) bool {
	if workspace.IsTestFile(p) {
		return true
	}
	for _, s := range workspace.MockSuffixes {
		if strings.HasSuffix(p, s) {
			return true
		}
	}
	return false
}

// checkFixtures checks the fixture and test files the walk found under
// paths (walkScripts' fixture) against the workspace's descriptions
// (workspace.CheckFixtures): nothing when the workspace has none.
func checkFixtures(ctx context.Context, opts Options, snap workspace.Snapshot, show func(string) string, todo []string) ([]Finding, error) {
	if len(snap.APIs) == 0 || len(todo) == 0 {
		return nil, nil
	}
	sort.Strings(todo)
	if err := opts.Workspace.WaitAnswers(ctx); err != nil {
		return nil, err
	}
	var out []Finding
	for _, f := range todo {
		data, err := input.ReadFileIn(input.RootOf(f), f, input.Fixtures)
		if err != nil {
			continue // restls test and the dry runs report a file they cannot read
		}
		kind := fixtureKind(f, data, snap)
		set := opts.Workspace.AnswerAPIs(snap.Registry(kind))
		for _, p := range workspace.CheckFixtures(data, set) {
			out = append(out, Finding{File: show(f), Line: p.Line, Column: p.RuneCol,
				Severity: SeverityWarning, Code: p.Code, Message: p.Message})
		}
	}
	return out, nil
}

// fixtureKind is the kind of the script a fixture file answers: the
// script beside it (NAME.js for NAME.mock.yaml), or the one a test file
// names (its kind: first); scriptService when there is none.
func fixtureKind(file string, data []byte, snap workspace.Snapshot) config.Kind {
	script := ""
	if workspace.IsTestFile(file) {
		if doc, err := input.YAMLNode(data); err == nil && len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
			root := doc.Content[0]
			for i := 0; i+1 < len(root.Content); i += 2 {
				switch root.Content[i].Value {
				case "kind":
					if k, err := config.ParseKind(root.Content[i+1].Value); err == nil {
						return k
					}
				case "script":
					if p, err := input.NamedPath(file, root.Content[i+1].Value); err == nil {
						script = p // an absolute one restls test refuses: no script, as none
					}
				}
			}
		}
	} else {
		for _, s := range workspace.MockSuffixes {
			if base, ok := strings.CutSuffix(file, s); ok {
				script = base + ".js"
			}
		}
	}
	if script == "" {
		return config.ScriptService
	}
	text, err := input.ReadFileIn(input.RootOf(file), script, input.Script)
	if err != nil {
		return config.ScriptService
	}
	abs, err := filepath.Abs(script)
	if err != nil {
		abs = script
	}
	return snap.Kind(filepath.ToSlash(abs), string(text)).Kind
}
