package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/restls/restls/internal/goldentest"
)

func layoutDir(t *testing.T, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestInitGolden: the restls.yaml that restls init writes for a platform
// directory below the repository, for configuration files found one by
// one, and for nothing found; each loads without a diagnostic.
func TestInitGolden(t *testing.T) {
	for name, files := range map[string][]string{
		"platform": {
			"platform/webforms/script-code-config/script-service-api.xml",
			"platform/webforms/script-handler-config/script-handler-api.xml",
			"platform/webforms/application.yml",
			"platform/webforms/tasks/not-scripts.txt", // inside the platform directory: not a script directory
			"deep/a/b/c/d/script-code-config/script-service-api.xml",
			"scripts/tasks/archive.js",
			"scripts/validation/check.js",
			"node_modules/x/script-code-config/script-service-api.xml",
		},
		"loose": {
			"conf/application.properties",
			"conf/nested/application.yml",
			"conf/xml/script-service-api.xml",
			"conf/xml/config.xml",
			"conf/handlers/script-handler-api.xml",
		},
		"platform-itself": {
			"script-code-config/script-service-api.xml",
			"config.xml",
		},
		"nothing": {"scripts/a.js"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := layoutDir(t, files...)
			file, err := WriteInit(dir)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			goldentest.Check(t, "testdata/golden/init-"+name+".golden", string(data))
			if p := ParseProject(file, data); len(p.Diagnostics) > 0 {
				t.Errorf("the file written does not load cleanly: %v", p.Diagnostics)
			}
			if err := sch(t).Validate(asJSON(t, data)); err != nil {
				t.Errorf("the file written does not validate: %v", err)
			}
			// Never over an existing file.
			if err := os.WriteFile(file, []byte("configRoot: mine\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := WriteInit(dir); !errors.Is(err, ErrExists) {
				t.Errorf("second init: %v, want ErrExists", err)
			}
			if data, _ := os.ReadFile(file); string(data) != "configRoot: mine\n" {
				t.Errorf("the existing file was changed: %q", data)
			}
		})
	}
	if _, err := WriteInit(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("init of a missing directory succeeded")
	}
}

func sch(t *testing.T) interface{ Validate(any) error } { return compileSchema(t) }
