package lsp

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/restls/restls/workspace"
)

// TestSettingNamesInTable: every setting the server reads is a row of the
// one table of setting names (workspace.Settings), and every row that
// names an editor setting is one the server reads.
func TestSettingNamesInTable(t *testing.T) {
	t.Parallel()
	var read []string
	for f := range reflect.TypeFor[rawSettings]().Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			read = append(read, name)
		}
	}
	table := workspace.Settings()
	for _, name := range read {
		if !slices.ContainsFunc(table, func(s workspace.Setting) bool { return s.Editor == name }) {
			t.Errorf("the server reads the setting %q, which workspace.Settings does not name", name)
		}
	}
	for _, s := range table {
		if s.Editor != "" && !slices.Contains(read, s.Editor) {
			t.Errorf("workspace.Settings names the editor setting %q, which the server does not read (rawSettings)", s.Editor)
		}
	}
}
