package workspace

import (
	"slices"
	"testing"
)

// TestSettingsProjectKeys: every project key of the table of setting
// names is a key of restls.yaml, and every key of restls.yaml is in the
// table or is the file's own (no flag or editor setting of that name).
func TestSettingsProjectKeys(t *testing.T) {
	keys := projectKeys().names()
	fileOnly := []string{"environments", "check", "roles", "faults", "timeLimits", "engine"}
	for _, s := range Settings() {
		if s.Project != "" && !slices.Contains(keys, s.Project) {
			t.Errorf("the table names the project key %q, which restls.yaml does not have (%v)", s.Project, keys)
		}
	}
	for _, k := range keys {
		if !slices.Contains(fileOnly, k) && !slices.ContainsFunc(Settings(), func(s Setting) bool { return s.Project == k }) {
			t.Errorf("restls.yaml has the key %q, which the table of setting names does not name", k)
		}
	}
}
