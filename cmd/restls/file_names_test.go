package main

import (
	"testing"

	"github.com/restls/restls/scripttest"
	"github.com/restls/restls/workspace"
)

// TestFileNamesAgree: restls test (scripttest, which may not import
// workspace) names test files as workspace does for the editor and
// restls check, and finds the same files.
func TestFileNamesAgree(t *testing.T) {
	t.Parallel()
	if scripttest.Suffix != workspace.TestFileSuffix {
		t.Fatalf("scripttest.Suffix %q, workspace.TestFileSuffix %q", scripttest.Suffix, workspace.TestFileSuffix)
	}
	for _, name := range []string{"a.test.yaml", "dir/a.test.yaml", ".test.yaml", "a.TEST.YAML", "a.test.yml", "a.test.yaml.bak"} {
		found := len(name) > len(scripttest.Suffix) && name[len(name)-len(scripttest.Suffix):] == scripttest.Suffix
		if got := workspace.IsTestFile(name); got != found {
			t.Errorf("%s: workspace says %v, restls test finds it: %v", name, got, found)
		}
	}
}
