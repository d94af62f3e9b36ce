package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/config"
	"github.com/restls/restls/internal/goldentest"
	"github.com/restls/restls/jslevel"
)

// TestDiagnosticsGolden: what a user reads about a broken restls.yaml
// (unknown keys with the nearest known one, values of the wrong type,
// YAML syntax), each with file:line:col, against golden files.
func TestDiagnosticsGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/unknown/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatal("no test files", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, err := LoadProject(filepath.ToSlash(f))
			if err != nil {
				t.Fatal(err)
			}
			if !p.HasErrors() {
				t.Fatalf("%s: no error", f)
			}
			var b strings.Builder
			for _, d := range p.Diagnostics {
				b.WriteString(d.String() + " [" + d.Code + "]\n")
			}
			goldentest.Check(t, "testdata/golden/"+strings.TrimSuffix(filepath.Base(f), ".yaml")+".golden", b.String())
		})
	}
}

const fullProject = `configRoot: platform/webforms
platformConfig: /etc/platform/config.xml
environments:
  test:
    configRoot: envs/test
  prod:
    properties: [envs/prod/application.yml, envs/prod/extra.properties]
    registryUrl: https://restls.example.com
defaultEnvironment: test
scriptKinds:
  "**/tasks/**": scriptTask
  "**/validation/**": validationScript
openapi:
  crm-customers: apis/crm.yaml
  billing: https://billing.example.com/openapi.json
check:
  include: ["scripts/**/*.js"]
  exclude: ["**/vendor/**"]
  strict: true
  disable: [hardcoded-authorization]
timeLimits:
  validationScript: 5000
engine: es2017
`

// TestProjectResolve: paths are relative to the file, environments
// replace the keys they set, and the kind map keeps the order written.
func TestProjectResolve(t *testing.T) {
	dir := filepath.Join("some", "repo")
	p := ParseProject(filepath.Join(dir, FileName), []byte(fullProject))
	if p.HasErrors() {
		t.Fatal(p.Diagnostics)
	}
	j := func(s string) string { return filepath.Join(dir, filepath.FromSlash(s)) }
	def, err := p.Sources("")
	if err != nil {
		t.Fatal(err)
	}
	if want := (config.Sources{ConfigRoot: j("envs/test"), PlatformConfig: "/etc/platform/config.xml"}); !def.Equal(want) {
		t.Errorf("default environment: %+v, want %+v", def, want)
	}
	prod, err := p.Sources("prod")
	if err != nil {
		t.Fatal(err)
	}
	want := config.Sources{ConfigRoot: j("platform/webforms"), PlatformConfig: "/etc/platform/config.xml",
		Properties: []string{j("envs/prod/application.yml"), j("envs/prod/extra.properties")}, RegistryURL: "https://restls.example.com"}
	if !prod.Equal(want) {
		t.Errorf("prod: %+v, want %+v", prod, want)
	}
	_, err = p.Sources("prd")
	if !errors.Is(err, ErrUnknownEnvironment) || !strings.Contains(err.Error(), `did you mean "prod"?`) {
		t.Errorf("unknown environment: %v", err)
	}
	if len(p.ScriptKinds) != 2 || p.ScriptKinds.KindOf("a/tasks/x.js", "") != config.ScriptTask ||
		p.ScriptKinds.KindOf("a/validation/x.js", "") != config.ValidationScript || p.ScriptKinds.KindOf("a/x.js", "") != config.ScriptService {
		t.Errorf("scriptKinds: %v", p.ScriptKinds)
	}
	if p.OpenAPI["crm-customers"] != j("apis/crm.yaml") || p.OpenAPI["billing"] != "https://billing.example.com/openapi.json" {
		t.Errorf("openapi: %v", p.OpenAPI)
	}
	if c := p.Check; !slices.Equal(c.Include, []string{"scripts/**/*.js"}) || !slices.Equal(c.Exclude, []string{"**/vendor/**"}) ||
		c.Strict == nil || !*c.Strict || !slices.Equal(c.Disable, []string{"hardcoded-authorization"}) {
		t.Errorf("check: %+v", c)
	}
	if l := p.TimeLimits; len(l) != 1 || l[config.ValidationScript] != 5*time.Second {
		t.Errorf("timeLimits: %v", l)
	}
	if empty := ParseProject("restls.yaml", nil); empty.HasErrors() || !empty.Config.IsZero() {
		t.Errorf("an empty file: %+v", empty)
	}
}

// TestFindProject: the nearest restls.yaml from a file or a directory,
// up to the repository root and no further.
func TestFindProject(t *testing.T) {
	top := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		p = filepath.Join(top, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("restls.yaml", "# above the repository: never found\n")
	write("repo/.git/HEAD", "ref: refs/heads/main\n")
	write("repo/restls.yaml", "configRoot: a\n")
	write("repo/sub/restls.yaml", "configRoot: b\n")
	write("repo/sub/scripts/x.js", "return 1\n")
	write("repo/other/scripts/y.js", "return 1\n")
	write("norepo/scripts/z.js", "return 1\n")
	write("norepo/restls.yaml", "configRoot: c\n")
	in := func(p string) string { return filepath.Join(top, filepath.FromSlash(p)) }
	for _, tc := range []struct{ start, want string }{
		{"repo/sub/scripts/x.js", "repo/sub/restls.yaml"},
		{"repo/sub/scripts", "repo/sub/restls.yaml"},
		{"repo/other/scripts/y.js", "repo/restls.yaml"},
		{"repo", "repo/restls.yaml"},
		{"norepo/scripts/z.js", ""}, // outside a repository, only the start's own directory
		{"norepo", "norepo/restls.yaml"},
	} {
		want := ""
		if tc.want != "" {
			want = in(tc.want)
		}
		if got := FindProject(in(tc.start)); got != want {
			t.Errorf("FindProject(%s) = %q, want %q", tc.start, got, want)
		}
	}
	if err := os.Remove(in("repo/restls.yaml")); err != nil {
		t.Fatal(err)
	}
	if got := FindProject(in("repo/other/scripts/y.js")); got != "" {
		t.Errorf("found %q above the repository root", got)
	}
	// Outside a repository, from a working directory that holds the
	// start: up to the working directory, as a start of "." finds it.
	t.Chdir(in("norepo"))
	for _, start := range []string{in("norepo/scripts/z.js"), in("norepo/scripts"), "scripts", "."} {
		if got, want := FindProject(start), in("norepo/restls.yaml"); got != want && filepath.Join(in("norepo"), got) != want {
			t.Errorf("from norepo: FindProject(%s) = %q, want %s", start, got, want)
		}
	}
	// A relative start gives a relative path.
	t.Chdir(in("repo/sub/scripts"))
	if got := FindProject("x.js"); got != filepath.Join("..", FileName) {
		t.Errorf("relative: %q", got)
	}
}

// TestProjectFaultsFail: faults.fail names the verdicts that fail a
// script; absent is nil (the explorer's default), and an unknown verdict
// is an error at the key.
func TestProjectFaultsFail(t *testing.T) {
	p := ParseProject(FileName, []byte("faults:\n  fail: [escaped, crashed]\n"))
	if p.HasErrors() || !slices.Equal(p.FaultsFail, []string{"escaped", "crashed"}) {
		t.Errorf("%v %v", p.FaultsFail, p.Diagnostics)
	}
	if p := ParseProject(FileName, []byte("check: {strict: true}\n")); p.FaultsFail != nil {
		t.Errorf("absent: %v", p.FaultsFail)
	}
	p = ParseProject(FileName, []byte("faults:\n  fail: [handled]\n"))
	if !p.HasErrors() || !strings.Contains(p.Diagnostics[0].Message, `verdict "handled"`) || p.Diagnostics[0].Line != 2 {
		t.Errorf("handled: %+v", p.Diagnostics)
	}
}

// TestProjectEngine: engine names a level; absent, it is latest.
func TestProjectEngine(t *testing.T) {
	for text, want := range map[string]jslevel.Level{"": jslevel.Latest, "engine: es5.1\n": jslevel.ES5_1,
		"engine: es2017\n": jslevel.ES2017, "engine: latest\n": jslevel.Latest} {
		p := ParseProject(FileName, []byte(text))
		if p.HasErrors() || p.EngineLevel != want {
			t.Errorf("%q: level %v, diagnostics %v; want %v", text, p.EngineLevel, p.Diagnostics, want)
		}
	}
}
