package layering

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// rule is what one package (a directory of the module) may import of
// restls, as its doc comment says.
type rule struct {
	// may lists the restls packages (paths relative to the module) that the
	// package's non-test files may import besides leaves.
	may []string
	// leaf: the package imports no restls package, so every package may
	// import it.
	leaf bool
	// testOnly: only _test.go files may import it (shared test helpers).
	testOnly bool
	// only narrows may to some files: of the package's non-test files,
	// only those named (base names) may import the package a key names,
	// which must also be in may. web imports lsp to serve /lsp, and for
	// nothing else.
	only map[string][]string
}

// table is the layering, bottom up:
//
//	input <- config <- openapi <- hints, runtime/restclient, runtime/curlin <- runtime/dryrun <- runtime/dryrun/history, runtime/dryrun/diff <- runtime, remote <- workspace, workspace/index, coverage <- engine <- check, faults <- scripttest <- lsp, mcp, dap <- web <- cmd/restls
//
// workspace is the project every surface shares (registry and reload, API
// descriptions and their attachment, recorded answers, fixture naming,
// path display, the project file): lsp, web and check take their
// snapshots from it. engine is the one dry-run engine under every
// surface that runs a script (lsp, web, scripttest, cmd/restls).
//
// Every package of the module has an entry: a new package fails the test
// until it is placed here on purpose. A package that imports nothing of
// restls is a leaf (leaf: true); add testOnly for a test helper, and name
// it internal/<name>test.
//
// What files may import:
//   - non-test files: the packages in may, and leaves that are not testOnly;
//   - test files of the package itself (package p): the same, plus testOnly
//     leaves;
//   - external test files (package p_test): any package in the table. They
//     are compiled apart from p and see it as its users do, so they are
//     where p is tested wired to the real packages above it (remote's tests
//     load through lsp.Server from web's /v1/services).
var table = map[string]rule{
	"config":                 {}, // leaves only (input)
	"openapi":                {may: []string{"config"}},
	"hints":                  {may: []string{"config", "openapi", "jslevel"}},
	"runtime/restclient":     {may: []string{"config"}},
	"runtime/curlin":         {may: []string{"config"}},                                         // curl command lines into api.rest.v1 calls (restls.pasteCurl, restls curl)
	"runtime/dryrun":         {may: []string{"config", "runtime/restclient"}},                   // the dry-run result's types, which lsp and web carry
	"runtime/dryrun/history": {may: []string{"runtime/restclient", "runtime/dryrun", "config"}}, // the run history behind compare (issue 28)
	"runtime/dryrun/diff":    {may: []string{"runtime/restclient", "runtime/dryrun", "config"}}, // a diff of two runs
	"runtime":                {may: []string{"config", "runtime/restclient", "runtime/dryrun"}},
	"runtime/isolate":        {may: []string{"config", "jslevel", "runtime", "runtime/restclient", "runtime/dryrun"}}, // jslevel: the engine level a debug child is given (DebugRequest)
	"remote":                 {may: []string{"config"}},
	"workspace":              {may: []string{"config", "openapi", "runtime/restclient", "workspace/index", "jslevel"}},                                                                     // the project as every surface sees it; restclient: the fixture and call formats its answer checks read (contract.go); workspace/index (and so hints, an engine below, which imports nothing of workspace): the Session owns the project indexes every surface shares (issue 34)
	"engine":                 {may: []string{"config", "openapi", "jslevel", "workspace", "runtime", "runtime/isolate", "runtime/restclient", "runtime/dryrun", "runtime/dryrun/history"}}, // the one dry-run engine: kind, fixtures, isolation, answer checks, history
	"check":                  {may: []string{"config", "hints", "workspace", "workspace/index"}},                                                                                           // workspace/index: the service-unused rule
	"workspace/index":        {may: []string{"config", "hints"}},                                                                                                                           // the project index behind navigation: scripts' calls and configuration entries
	"faults":                 {may: []string{"config", "engine", "openapi", "runtime/restclient", "runtime/dryrun", "workspace"}},                                                          // issue 36: the fault explorer over the engine; openapi: the statuses an operation documents
	"scripttest":             {may: []string{"config", "coverage", "engine", "faults", "jslevel", "runtime", "runtime/restclient", "workspace"}},                                           // workspace: the snapshot a run sees; coverage: restls test --coverage
	"coverage":               {may: []string{"runtime", "runtime/dryrun", "runtime/restclient"}},                                                                                           // restls test --coverage (issue 35): an observer of the engine's runs; runtime: a script's coverage map
	"lsp":                    {may: []string{"config", "engine", "faults", "openapi", "hints", "runtime/curlin", "runtime/dryrun", "runtime/dryrun/history", "runtime/dryrun/diff", "workspace", "workspace/index"}},
	"mcp":                    {may: []string{"config", "engine", "openapi", "hints", "check", "faults", "scripttest", "runtime/curlin", "runtime/restclient", "runtime/dryrun", "workspace", "workspace/index"}}, // the MCP server for coding agents (issue 37): an adapter beside lsp; restclient: the Redactor and the fixture format; scripttest: the test file's schema and runs; faults: the explorer
	"dap":                    {may: []string{"config", "engine", "input", "runtime", "runtime/restclient", "runtime/dryrun", "runtime/dryrun/history", "scripttest", "workspace"}},                               // restls dap (issue 35): an adapter beside lsp and mcp; runtime: the lines that can stop; history: replay; scripttest: a test case
	"web": {may: []string{"config", "coverage", "dap", "engine", "openapi", "hints", "lsp", "mcp", "runtime/restclient", "runtime/dryrun", "scripttest", "workspace"}, // restclient: the fixture format only (ParseMock, MockSchema); workspace: the session every endpoint asks, the project file, path display and the run contract
		only: map[string][]string{"lsp": {"lspws.go"}, "dap": {"dapws.go"}, "scripttest": {"tests.go"}, "coverage": {"tests.go"}}}, // lsp: serving /lsp only, dap: /dap only, scripttest and coverage: POST /v1/test only; every other question goes to workspace.Session
	"cmd/restls": {may: []string{"config", "coverage", "engine", "jslevel", "faults", "openapi", "hints", "check", "scripttest", "runtime", "runtime/isolate", "runtime/restclient", "runtime/curlin", "runtime/dryrun", "runtime/dryrun/history", "runtime/dryrun/diff", "remote", "lsp", "mcp", "dap", "web", "workspace"}},

	"jsdepth": {leaf: true},
	"jslevel": {},           // leaves only (jsdepth): the engine profile's levels, feature table and detector (issue 38), asked by hints, workspace and engine
	"textpos": {leaf: true}, // positions and their units: byte offsets, lines with byte, character or UTF-16 columns
	"input":   {leaf: true},
	"docs":    {leaf: true}, // the pages restls serves itself (docs/api.md to agents)

	"internal/cursortest":  {leaf: true, testOnly: true},
	"internal/deepgentest": {leaf: true, testOnly: true},
	"internal/e2e":         {leaf: true, testOnly: true}, // restls end to end through the binary (sessions, editors, commands), no code
	"internal/goldentest":  {leaf: true, testOnly: true},
	"internal/hygiene":     {leaf: true, testOnly: true}, // tests of the repository's files (Dockerfile, make, manifests, docs), no code
	"internal/layering":    {leaf: true, testOnly: true},
	"internal/lsptest":     {leaf: true, testOnly: true},
	"internal/oauthtest":   {leaf: true, testOnly: true},
	"internal/openapitest": {leaf: true, testOnly: true},
	"internal/restlstest":  {leaf: true, testOnly: true}, // restls built once per test process, run as a child
	"internal/tsgentest":   {leaf: true, testOnly: true},
	"internal/walktest":    {leaf: true, testOnly: true}, // the trees of the project walks' tests (the skip rule, the depth bound)
}

// helperName is where test-helper packages live. make check leaves them
// out of deadcode (only tests reach them), so each must be testOnly: then
// no shipped code can hide there.
var helperName = regexp.MustCompile(`^internal/[^/]*test$`)

// TestLayering checks every Go file of the module against table.
func TestLayering(t *testing.T) {
	root, module := moduleRoot(t)
	for _, msg := range check(t, root, module, table) {
		t.Error(msg)
	}
}

// TestCheck runs the checker on small modules, so a broken checker cannot
// pass the real one silently.
func TestCheck(t *testing.T) {
	tbl := map[string]rule{
		"low":          {leaf: true},
		"mid":          {may: []string{"low"}},
		"top":          {may: []string{"low", "mid"}},
		"internal/th":  {leaf: true, testOnly: true},
		"internal/lib": {leaf: true},
	}
	for _, tc := range []struct {
		name  string
		files map[string]string // path: imports, one per line
		tbl   map[string]rule   // nil = tbl
		want  []string          // messages, in order
	}{
		{"clean", map[string]string{
			"low/a.go":          "package low\n",
			"mid/a.go":          "package mid\nm/low\nm/internal/lib\nfmt\n",
			"mid/a_test.go":     "package mid\nm/internal/th\n",
			"mid/x_test.go":     "package mid_test\nm/top\n",
			"top/a.go":          "package top\nm/mid\n",
			"internal/th/a.go":  "package th\ntesting\n",
			"internal/lib/a.go": "package lib\n",
			"mid/testdata/x.go": "package x\nm/top\n",
			"node_modules/x.go": "package x\nm/top\n",
			".hidden/x.go":      "package x\nm/top\n",
			"other/go.mod":      "package x\n",
			"other/x.go":        "package x\nm/top\n",
			"low/README.notgo":  "m/top\n",
		}, nil, nil},
		{"upward", map[string]string{
			"low/a.go":          "package low\nm/mid\n",
			"mid/a.go":          "package mid\n",
			"top/a.go":          "package top\n",
			"internal/th/a.go":  "package th\n",
			"internal/lib/a.go": "package lib\n",
		}, nil, []string{
			`low/a.go imports m/mid: low is a leaf and may import no package of m (table in internal/layering/layering_test.go)`,
		}},
		{"skip a floor in a test", map[string]string{
			"low/a.go":          "package low\n",
			"mid/a.go":          "package mid\n",
			"mid/a_test.go":     "package mid\nm/top\n",
			"top/a.go":          "package top\n",
			"internal/th/a.go":  "package th\n",
			"internal/lib/a.go": "package lib\n",
		}, nil, []string{
			`mid/a_test.go imports m/top: mid may import only low and leaves (table in internal/layering/layering_test.go)`,
		}},
		{"one file's exception", map[string]string{
			"low/a.go":          "package low\n",
			"mid/a.go":          "package mid\n",
			"top/a.go":          "package top\n",
			"internal/th/a.go":  "package th\n",
			"internal/lib/a.go": "package lib\n",
			"side/door.go":      "package side\nm/mid\nm/low\n",
			"side/other.go":     "package side\nm/mid\nm/low\n",
			"side/a_test.go":    "package side\nm/mid\n",
		}, map[string]rule{
			"low": {leaf: true}, "mid": {may: []string{"low"}}, "top": {may: []string{"low", "mid"}},
			"internal/th": {leaf: true, testOnly: true}, "internal/lib": {leaf: true},
			"side": {may: []string{"low", "mid"}, only: map[string][]string{"mid": {"door.go"}}},
		}, []string{
			`side/other.go imports m/mid: of side's files only door.go may import mid (table in internal/layering/layering_test.go)`,
		}},
		{"test helper in code", map[string]string{
			"low/a.go":          "package low\n",
			"mid/a.go":          "package mid\nm/internal/th\n",
			"top/a.go":          "package top\n",
			"internal/th/a.go":  "package th\n",
			"internal/lib/a.go": "package lib\n",
		}, nil, []string{
			`mid/a.go imports m/internal/th: internal/th is a test helper, only _test.go files may import it (table in internal/layering/layering_test.go)`,
		}},
		{"new package", map[string]string{
			"low/a.go":          "package low\n",
			"mid/a.go":          "package mid\nm/depth\n",
			"depth/a.go":        "package depth\n",
			"top/a.go":          "package top\n",
			"internal/th/a.go":  "package th\n",
			"internal/lib/a.go": "package lib\n",
		}, nil, []string{
			`depth/a.go: package depth is not in the layering table: add it to table in internal/layering/layering_test.go with what it may import (leaf: true if it imports no package of m)`,
			`mid/a.go imports m/depth: package depth is not in the layering table: add it to table in internal/layering/layering_test.go with what it may import (leaf: true if it imports no package of m)`,
		}},
		{"undocumented", map[string]string{
			"low/a.go":          "package low\n",
			"mid/a.go":          "nodoc\npackage mid\n",
			"mid/doc_test.go":   "package mid\n",
			"top/a.go":          "package top\n",
			"internal/th/a.go":  "package th\n",
			"internal/lib/a.go": "package lib\n",
		}, nil, []string{
			`mid: no package doc comment: say in doc.go what the package owns and what it must not import`,
		}},
		{"typo in may", map[string]string{
			"low/a.go": "package low\n",
			"mid/a.go": "package mid\n",
		}, map[string]rule{"low": {leaf: true}, "mid": {may: []string{"lo"}}}, []string{
			`mid: may import lo, which is not in the layering table (table in internal/layering/layering_test.go)`,
		}},
		{"helper name", map[string]string{
			"low/a.go":            "package low\n",
			"internal/xtest/a.go": "package xtest\n",
		}, map[string]rule{"low": {leaf: true}, "internal/xtest": {leaf: true}}, []string{
			`internal/xtest: a test-helper name (make check leaves internal/*test out of deadcode) but not testOnly (table in internal/layering/layering_test.go)`,
		}},
		{"stale entry", map[string]string{
			"low/a.go":          "package low\n",
			"mid/a.go":          "package mid\n",
			"internal/th/a.go":  "package th\n",
			"internal/lib/a.go": "package lib\n",
		}, nil, []string{
			`top: in the layering table but has no Go files: remove it from table in internal/layering/layering_test.go`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, spec := range tc.files {
				path := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(goFile(spec)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			tbl := tbl
			if tc.tbl != nil {
				tbl = tc.tbl
			}
			got := check(t, dir, "m", tbl)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// leftOut says whether the directory path (named name, not the root) is
// outside the module's packages as ./... sees them: testdata,
// node_modules, vendor, names starting with . or _, and another module
// (a go.mod of its own, such as third_party/jsonschema).
func leftOut(path, name string) bool {
	if name == "testdata" || name == "node_modules" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return true
	}
	_, err := os.Stat(filepath.Join(path, "go.mod"))
	return err == nil
}

// goFile turns "package p\nimport/one\n..." into a Go file with a package
// doc comment, or without one after a first line "nodoc".
func goFile(spec string) string {
	doc := "// Package doc.\n"
	if rest, ok := strings.CutPrefix(spec, "nodoc\n"); ok {
		doc, spec = "", rest
	}
	lines := strings.Split(strings.TrimSpace(spec), "\n")
	if !strings.HasPrefix(lines[0], "package ") {
		return spec
	}
	var b strings.Builder
	b.WriteString(doc + lines[0] + "\n")
	for _, imp := range lines[1:] {
		fmt.Fprintf(&b, "import _ %q\n", imp)
	}
	return b.String()
}

// moduleRoot finds go.mod above the working directory and reads the module
// path from it.
func moduleRoot(t *testing.T) (root, module string) {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		f, err := os.Open(filepath.Join(dir, "go.mod"))
		if err == nil {
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
					return dir, strings.Trim(strings.TrimSpace(m), `"`)
				}
			}
			t.Fatalf("%s/go.mod has no module line", dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// check parses the imports of every Go file under root (directories
// leftOut as the go command leaves them out of ./...) and returns a message for each import the table does not
// allow, each package not in the table and each table entry with no files.
// All files count whatever their build constraints.
func check(t *testing.T, root, module string, tbl map[string]rule) []string {
	const where = "(table in internal/layering/layering_test.go)"
	notInTable := func(pkg string) string {
		return fmt.Sprintf("package %s is not in the layering table: add it to table in internal/layering/layering_test.go with what it may import (leaf: true if it imports no package of %s)", pkg, module)
	}
	var msgs []string
	seen := map[string]bool{}       // packages with Go files
	documented := map[string]bool{} // packages with a package doc comment
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && leftOut(path, name) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		pkg := filepath.ToSlash(filepath.Dir(rel))
		seen[pkg] = true
		r, known := tbl[pkg]
		if !known {
			msgs = append(msgs, rel+": "+notInTable(pkg))
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		isTest := strings.HasSuffix(name, "_test.go")
		if !isTest && f.Doc != nil {
			documented[pkg] = true
		}
		external := strings.HasSuffix(f.Name.Name, "_test")
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			dep, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			target, ok := tbl[dep]
			switch {
			case !ok:
				msgs = append(msgs, fmt.Sprintf("%s imports %s: %s", rel, imp, notInTable(dep)))
			case target.testOnly && !isTest:
				msgs = append(msgs, fmt.Sprintf("%s imports %s: %s is a test helper, only _test.go files may import it %s", rel, imp, dep, where))
			case known && !isTest && slices.Contains(r.may, dep) && r.only[dep] != nil && !slices.Contains(r.only[dep], name):
				msgs = append(msgs, fmt.Sprintf("%s imports %s: of %s's files only %s may import %s %s", rel, imp, pkg, strings.Join(r.only[dep], ", "), dep, where))
			case !known || external || target.leaf || slices.Contains(r.may, dep):
			case r.leaf:
				msgs = append(msgs, fmt.Sprintf("%s imports %s: %s is a leaf and may import no package of %s %s", rel, imp, pkg, module, where))
			default:
				msgs = append(msgs, fmt.Sprintf("%s imports %s: %s may import only %s and leaves %s", rel, imp, pkg, strings.Join(r.may, ", "), where))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var more []string
	for pkg, r := range tbl {
		if helperName.MatchString(pkg) && !r.testOnly {
			more = append(more, fmt.Sprintf("%s: a test-helper name (make check leaves internal/*test out of deadcode) but not testOnly %s", pkg, where))
		}
		if !seen[pkg] {
			more = append(more, fmt.Sprintf("%s: in the layering table but has no Go files: remove it from table in internal/layering/layering_test.go", pkg))
		} else if !documented[pkg] {
			more = append(more, fmt.Sprintf("%s: no package doc comment: say in doc.go what the package owns and what it must not import", pkg))
		}
		for dep := range r.only {
			if !slices.Contains(r.may, dep) {
				more = append(more, fmt.Sprintf("%s: only names %s, which is not in its may %s", pkg, dep, where))
			}
		}
		for _, dep := range r.may {
			if _, ok := tbl[dep]; !ok {
				more = append(more, fmt.Sprintf("%s: may import %s, which is not in the layering table %s", pkg, dep, where))
			}
		}
	}
	slices.Sort(more)
	return append(msgs, more...)
}
