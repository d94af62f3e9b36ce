package hints

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/input"
	"github.com/restls/restls/internal/openapitest"
	"github.com/restls/restls/openapi"
)

// PrismEnv names Stoplight Prism's command; TestPrismAgrees runs only
// when it is set.
const PrismEnv = "RESTLS_PRISM"

// oasExamplesEnv names an unpacked @readme/oas-examples package, used
// instead of npm.
const oasExamplesEnv = "RESTLS_OAS_EXAMPLES"

// prismExplained lists the disagreements with Prism that are understood:
// a case whose key (description, method, path, what was changed) starts
// with a prefix here. The reasons are in docs/decisions.md, "Prism, the
// external check (issue 27)".
var prismExplained = []struct{ desc, prefix, reason string }{
	{"composed 3.0 json", "POST /labels valid", "restls reads oneOf as anyOf: a value that matches both branches passes"},
	{"composed 3.0 json", "POST /labels payload.text: oneOf branch ", "restls reads oneOf as anyOf: a value that matches both branches passes"},
	{"composed 3.0 json", "GET /pets query name: against the pattern", "RE2 cannot read a lookahead: restls skips the pattern"},
}

// prismExplanation returns the entry of prismExplained a case of a
// description falls under, or -1.
func prismExplanation(desc, label string) int {
	for i, e := range prismExplained {
		if e.desc == desc && strings.HasPrefix(label, e.prefix) {
			return i
		}
	}
	return -1
}

// The disagreements explained by what the description holds, wherever
// it holds it.
const (
	prismUntypedNullable = "Prism validates no body whose schema holds nullable on a schema without type (beside a oneOf, or alone): it accepts every body of the operation"
	prismOneOfParam      = "restls reads oneOf as anyOf: a parameter value that matches two branches (\"1\" for oneOf integer, string) passes"
	prismBodyMissing     = "the operation requires a body and the platform's call (delete) sends none: restls does not report it"
	prismIgnoredHeader   = "OpenAPI says a header parameter named Accept, Content-Type or Authorization SHALL be ignored; restls ignores it, Prism checks it"
)

// prismRule explains a disagreement by the case's description: Prism
// accepting what restls rejects in a body Prism does not validate, or
// rejecting a header OpenAPI has it ignore.
func prismRule(c prismCase, prism string) string {
	switch {
	case prism == "accept" && c.untypedNullable:
		return prismUntypedNullable
	case prism == "reject" && c.bodyMissing:
		return prismBodyMissing
	case prism == "reject" && c.oneOfParam:
		return prismOneOfParam
	case prism == "reject" && (strings.HasPrefix(c.what, "header accept:") || strings.HasPrefix(c.what, "header content-type:") ||
		strings.HasPrefix(c.what, "header authorization:")):
		return prismIgnoredHeader
	}
	return ""
}

// untypedNullable: a schema, or one it reaches, has nullable and no type.
func (g prismGen) untypedNullable(v any, depth int, seen map[string]bool) bool {
	m, _ := v.(map[string]any)
	if ref, ok := m["$ref"].(string); ok {
		if seen[ref] {
			return false
		}
		seen[ref] = true
		m = g.resolve(m)
	}
	if m == nil || depth > 32 {
		return false
	}
	if _, typed := m["type"]; m["nullable"] == true && !typed {
		return true
	}
	for _, x := range m {
		switch y := x.(type) {
		case map[string]any:
			if g.untypedNullable(y, depth+1, seen) {
				return true
			}
		case []any:
			for _, z := range y {
				if g.untypedNullable(z, depth+1, seen) {
					return true
				}
			}
		}
	}
	return false
}

// prismClasses are the rule classes of issue 27, in the table's order.
var prismClasses = []string{"valid", "enum", "type", "format", "pattern", "length", "range", "required",
	"additionalProperties", "items", "composition"}

// TestPrismAgrees: an independent validating mock server (Prism, `prism
// mock --errors`) and restls judge the same calls, valid and invalid
// literal values of each rule class generated from each description's
// operations; every call one rejects (400 or 422) and the other passes is
// a disagreement, and the test fails on any not in prismExplained.
//
// Run it with:
//
//	mkdir -p /tmp/prism && cd /tmp/prism && npm init -y && npm install @stoplight/prism-cli@5.14.2
//	RESTLS_PRISM=/tmp/prism/node_modules/.bin/prism go test -count=1 -run TestPrismAgrees -v ./hints/
func TestPrismAgrees(t *testing.T) {
	bin := os.Getenv(PrismEnv)
	if bin == "" {
		t.Skip("set " + PrismEnv + "=/path/to/prism to run it (npm install @stoplight/prism-cli@5.14.2; see the test's comment)")
	}
	type tally struct{ agreeReject, agreeAccept, explained, disagree, other int }
	table := map[string]*tally{}
	for _, c := range prismClasses {
		table[c] = &tally{}
	}
	used, ran, usedRule := map[int]bool{}, map[string]bool{}, map[string]bool{}
	for _, d := range prismDescriptions(t) {
		t.Run(d.name, func(t *testing.T) {
			ran[d.name] = true
			var doc map[string]any
			n, err := input.YAMLNode(d.data)
			if err != nil {
				t.Fatal(err)
			}
			if err := n.Load(&doc); err != nil {
				t.Fatal(err)
			}
			idx, err := openapi.Build(d.file, d.data)
			if err != nil {
				t.Fatal(err)
			}
			disp := Display{APIs: openapi.Attach(testRegistry(t), []openapi.Doc{{ServiceID: "crm", Index: idx}})}
			api, _ := disp.APIs.API("crm")
			cases := prismCases(doc)
			if stride := len(cases)/prismMaxCalls + 1; stride > 1 {
				// a large description: every stride-th call, the same each run
				var some []prismCase
				for i := 0; i < len(cases); i += stride {
					some = append(some, cases[i])
				}
				t.Logf("%s: %d of %d calls", d.name, len(some), len(cases))
				cases = some
			}
			served := d.data
			if d.drop != "" {
				delete(doc["paths"].(map[string]any), d.drop)
				if served, err = json.Marshal(doc); err != nil {
					t.Fatal(err)
				}
			}
			base := startPrism(t, bin, d.file, served)
			sent := 0
			for _, c := range cases {
				if d.drop != "" && c.path == d.drop {
					continue
				}
				segs := make([]openapi.Seg, len(c.segs))
				for i, s := range c.segs {
					segs[i] = openapi.Seg{Text: s}
				}
				if m, _ := api.Match(c.method, segs); m == nil || m.Path != c.path {
					continue // another template matches these segments first
				}
				sent++
				status, body := prismSend(t, base, c)
				var prism string
				switch {
				case status >= 200 && status < 400:
					prism = "accept"
				case status == 500 && violations(body) == "response":
					// the request passed; the answer Prism made up broke
					// the description's response schema
					prism = "accept"
				case status == 500 && violations(body) == "request":
					// the request broke the description and Prism could
					// not make up the error answer
					prism = "reject"
				case status == 400 || status == 422:
					// Prism's own problem, or the operation's 400/422
					// answer, which it sends for a request it finds invalid.
					prism = "reject"
				default:
					table[c.class].other++
					t.Logf("other: %s: Prism answered %d %.200s", c.label(), status, body)
					continue
				}
				var findings []string
				for _, dg := range Diagnose(NewDocument(c.script()), testRegistry(t), disp) {
					if valueCodes[dg.Code] || dg.Code == CodeOpenAPIMissingQuery {
						findings = append(findings, dg.Code+": "+dg.Message)
					}
				}
				restls := "accept"
				if len(findings) > 0 {
					restls = "reject"
				}
				if testing.Verbose() {
					t.Logf("%s %s: Prism %s %d, restls %s %q", c.class, c.label(), prism, status, restls, findings)
				}
				tl := table[c.class]
				switch key := d.name + " " + c.label(); {
				case prism == restls && prism == "reject":
					tl.agreeReject++
					if c.class == "valid" {
						t.Logf("both reject the call meant valid: %s: %q", c.label(), findings)
					}
				case prism == restls:
					tl.agreeAccept++
				case prismRule(c, prism) != "":
					tl.explained++
					usedRule[prismRule(c, prism)] = true
					t.Logf("explained: %s: Prism %s, restls %s: %s", key, prism, restls, prismRule(c, prism))
				case prismExplanation(d.name, c.label()) >= 0:
					e := prismExplanation(d.name, c.label())
					tl.explained++
					used[e] = true
					t.Logf("explained: %s: Prism %s, restls %s: %s", key, prism, restls, prismExplained[e].reason)
				default:
					tl.disagree++
					t.Errorf("%s: Prism %s (%d %.300s), restls %s %q\n  script: %s", key, prism, status, body, restls, findings, c.script())
				}
			}
			t.Logf("%s: %d calls sent", d.name, sent)
			if sent < 10 {
				t.Errorf("%s: only %d calls sent", d.name, sent)
			}
		})
	}
	for i, e := range prismExplained {
		if !used[i] && ran[e.desc] {
			t.Errorf("explained disagreement never seen (stale entry?): %s %s: %s", e.desc, e.prefix, e.reason)
		}
	}
	if ran["composed 3.0 json"] && !usedRule[prismUntypedNullable] {
		t.Errorf("no disagreement seen where %s", prismUntypedNullable)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-21s %7s %7s %9s %8s %5s\n", "class", "reject", "accept", "explained", "disagree", "other")
	for _, c := range prismClasses {
		tl := table[c]
		fmt.Fprintf(&b, "%-21s %7d %7d %9d %8d %5d\n", c, tl.agreeReject, tl.agreeAccept, tl.explained, tl.disagree, tl.other)
	}
	t.Log("agreement per rule class (reject/accept: both said so)\n" + b.String())
}

// prismMaxCalls bounds the calls sent for one description (GitHub's
// makes tens of thousands).
const prismMaxCalls = 2000

// githubDescription is GitHub's description when the test cache has it
// or npm can fetch it (internal/openapitest), else "".
func githubDescription(t *testing.T) string {
	path, why := openapitest.GitHubPath()
	if path == "" {
		t.Log("GitHub's description left out: " + why)
	}
	return path
}

type prismDesc struct {
	name, file string
	data       []byte
	drop       string // a path Prism cannot read (a $ref to nothing), left out of what it serves
}

// prismDescriptions: the things service of the literal checks (3.0 YAML,
// 3.1 JSON), a composed one, the descriptions of the editor's marker
// archives, and two real ones of @readme/oas-examples: Train Travel and
// ReadMe's API (3.1 YAML, oneOf/anyOf/allOf).
func prismDescriptions(t *testing.T) []prismDesc {
	var out []prismDesc
	for _, style := range []string{"3.0 yaml", "3.1 json"} {
		out = append(out, prismDesc{"things " + style, "things." + strings.Fields(style)[1], thingsDescription(t, style), ""})
	}
	out = append(out, prismDesc{"composed 3.0 json", "composed.json", composedDescription(t), ""})
	for _, a := range []struct{ archive, file, drop string }{{"openapi30.txt", "shop.yaml", ""}, {"openapi31.txt", "things31.json", "/broken"}} {
		data, err := os.ReadFile(filepath.Join("..", "lsp", "testdata", a.archive))
		if err != nil {
			t.Fatal(err)
		}
		if f := archiveFile(data, a.file); f != nil {
			out = append(out, prismDesc{a.archive + " " + a.file, a.file, f, a.drop})
		} else {
			t.Fatalf("%s holds no %s", a.archive, a.file)
		}
	}
	if path := githubDescription(t); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, prismDesc{"api.github.com.json", "api.github.com.json", data, ""})
	}
	if dir := oasExamples(t); dir != "" {
		for _, name := range []string{"train-travel.yaml", "readme.yaml"} {
			data, err := os.ReadFile(filepath.Join(dir, "3.1", "yaml", name))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, prismDesc{name, name, data, ""})
		}
	}
	return out
}

// archiveFile returns a file of a txtar archive ("-- name --" lines).
func archiveFile(data []byte, name string) []byte {
	var out []byte
	in := false
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(strings.TrimSpace(line), " --") {
			if in {
				break
			}
			in = strings.TrimSpace(line) == "-- "+name+" --"
			continue
		}
		if in {
			out = append(out, line...)
		}
	}
	return out
}

// oasExamples unpacks @readme/oas-examples (8.2.2) into the user cache
// with npm pack once, or names it from RESTLS_OAS_EXAMPLES.
func oasExamples(t *testing.T) string {
	if p := os.Getenv(oasExamplesEnv); p != "" {
		return p
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dest := filepath.Join(cache, "restls", "oas-examples-8.2.2")
	if _, err := os.Stat(filepath.Join(dest, "package", "3.1", "yaml", "train-travel.yaml")); err == nil {
		return filepath.Join(dest, "package")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Log("npm is not installed: Train Travel left out (set " + oasExamplesEnv + ")")
		return ""
	}
	if err := os.MkdirAll(dest, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "pack", "--silent", "@readme/oas-examples@8.2.2")
	cmd.Dir = dest
	out, err := cmd.Output()
	if err != nil {
		t.Logf("npm pack @readme/oas-examples failed: %v: Train Travel left out", err)
		return ""
	}
	tgz := filepath.Join(dest, strings.TrimSpace(string(out)))
	if err := exec.CommandContext(ctx, "tar", "-xzf", tgz, "-C", dest).Run(); err != nil {
		t.Fatalf("unpacking %s: %v", tgz, err)
	}
	return filepath.Join(dest, "package")
}

// startPrism serves a description with `prism mock --errors` on a free
// loopback port until the test ends, and returns its base URL.
func startPrism(t *testing.T, bin, name string, data []byte) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	cmd := exec.CommandContext(ctx, bin, "mock", "--errors", "-h", "127.0.0.1", "-p", strconv.Itoa(port), file)
	cmd.WaitDelay = 5 * time.Second
	cmd.SysProcAttr = prismSysProcAttr()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	ready := make(chan error, 1)
	go func() {
		var log strings.Builder
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if log.Len() < 4096 {
				log.WriteString(sc.Text() + "\n")
			}
			if strings.Contains(sc.Text(), "Prism is listening") {
				ready <- nil
				_, _ = io.Copy(io.Discard, out)
				return
			}
		}
		ready <- fmt.Errorf("prism ended before listening:\n%s", log.String())
	}()
	select {
	case err := <-ready:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("prism did not listen within a minute")
	}
	return "http://127.0.0.1:" + strconv.Itoa(port)
}

// prismClient never follows a redirect: Prism's mocked 3xx answers name
// hosts off this machine.
var prismClient = &http.Client{Timeout: 20 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}}

func prismSend(t *testing.T, base string, c prismCase) (int, []byte) {
	t.Helper()
	var segs []string
	for _, s := range c.segs {
		segs = append(segs, url.PathEscape(s))
	}
	u := base + "/" + strings.Join(segs, "/")
	if len(c.query) > 0 {
		q := url.Values{}
		for _, kv := range c.query {
			q.Add(kv[0], kv[1])
		}
		u += "?" + q.Encode()
	}
	var body io.Reader
	if c.hasBody {
		b, err := json.Marshal(c.body)
		if err != nil {
			t.Fatal(err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(c.method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if c.hasBody {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer x") // security is not a value check
	for _, kv := range c.headers {
		req.Header.Set(kv[0], kv[1])
	}
	resp, err := prismClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if v := resp.Header.Get("sl-violations"); v != "" {
		b = append([]byte("sl-violations: "+v+" "), b...)
	}
	return resp.StatusCode, b
}

// violations reads the violations the body prismSend returned names
// (Prism's sl-violations header): "request" when one is of the request,
// "response" when all are of the answer, else "".
func violations(body []byte) string {
	rest, ok := bytes.CutPrefix(body, []byte("sl-violations: "))
	if !ok {
		return ""
	}
	var vs []struct {
		Location []string `json:"location"`
	}
	if err := json.NewDecoder(bytes.NewReader(rest)).Decode(&vs); err != nil || len(vs) == 0 {
		return ""
	}
	for _, v := range vs {
		if len(v.Location) == 0 {
			return ""
		}
		if v.Location[0] == "request" {
			return "request"
		}
	}
	return "response"
}

// prismCase is one call: the same values go into the script's literal
// and over the wire.
type prismCase struct {
	class, what  string
	method, path string // path is the description's template
	segs         []string
	query        [][2]string
	headers      [][2]string
	body         any
	hasBody      bool
	callName     string
	// untypedNullable: the body's schema holds nullable without type
	untypedNullable bool
	// bodyMissing: the operation requires a body the call cannot send
	bodyMissing bool
	// oneOfParam: a parameter the call sends has a oneOf schema
	oneOfParam bool
}

func (c prismCase) label() string { return c.method + " " + c.path + " " + c.what }

func (c prismCase) script() string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	var segs, query, headers []string
	for _, s := range c.segs {
		segs = append(segs, q(s))
	}
	for _, kv := range c.query {
		query = append(query, q(kv[0])+": "+q(kv[1]))
	}
	for _, kv := range c.headers {
		headers = append(headers, q(kv[0])+": "+q(kv[1]))
	}
	s := fmt.Sprintf("api.rest.v1.%s(\"crm\", {pathParams: [%s], queryParams: {%s}}, {%s}", c.callName,
		strings.Join(segs, ", "), strings.Join(query, ", "), strings.Join(headers, ", "))
	if c.hasBody {
		b, _ := json.Marshal(c.body)
		s += ", " + string(b)
	}
	return s + ");"
}

// prismGen builds values from a description's schemas.
type prismGen struct{ doc map[string]any }

func (g prismGen) resolve(v any) map[string]any {
	for i := 0; i < 16; i++ {
		m, _ := v.(map[string]any)
		ref, ok := m["$ref"].(string)
		if !ok {
			return m
		}
		v = g.doc
		for _, p := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			mm, _ := v.(map[string]any)
			v = mm[p]
		}
	}
	return nil
}

func schemaType(s map[string]any) string {
	switch ty := s["type"].(type) {
	case string:
		return ty
	case []any:
		for _, x := range ty {
			if x != "null" {
				return fmt.Sprint(x)
			}
		}
	}
	if _, ok := s["properties"]; ok {
		return "object"
	}
	return ""
}

func nullable(s map[string]any) bool {
	if s["nullable"] == true {
		return true
	}
	if ty, ok := s["type"].([]any); ok {
		for _, x := range ty {
			if x == "null" {
				return true
			}
		}
	}
	return false
}

// valid makes a value the schema accepts (its example, default or first
// enum value when it has one).
func (g prismGen) valid(v any, depth int) any {
	s := g.resolve(v)
	if s == nil || depth > 6 {
		return "x"
	}
	if ex, ok := s["example"]; ok {
		return ex
	}
	if exs, ok := s["examples"].([]any); ok && len(exs) > 0 {
		return exs[0]
	}
	if d, ok := s["default"]; ok {
		return d
	}
	if c, ok := s["const"]; ok {
		return c
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	if all, ok := s["allOf"].([]any); ok {
		// one schema of the parts' keywords, their properties merged
		merged := map[string]any{}
		props := map[string]any{}
		for _, part := range append([]any{s}, all...) {
			ps := g.resolve(part)
			for k, v := range ps {
				if k != "allOf" && k != "properties" {
					merged[k] = v
				}
			}
			if p, ok := ps["properties"].(map[string]any); ok {
				for k, v := range p {
					props[k] = v
				}
			}
		}
		if len(props) > 0 {
			merged["properties"] = props
		}
		return g.valid(merged, depth+1)
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			return g.valid(alts[0], depth+1)
		}
	}
	switch schemaType(s) {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		for k, p := range props {
			if ps := g.resolve(p); ps != nil && ps["readOnly"] != true {
				out[k] = g.valid(p, depth+1)
			}
		}
		return out
	case "array":
		return []any{g.valid(s["items"], depth+1)}
	case "integer", "number":
		if m, ok := s["minimum"].(int); ok {
			return m + 1
		}
		return 1
	case "boolean":
		return true
	case "string":
		switch s["format"] {
		case "date":
			return "2024-01-31"
		case "date-time":
			return "2024-01-31T10:00:00Z"
		case "uuid":
			return "123e4567-e89b-12d3-a456-426614174000"
		case "email":
			return "a@b.test"
		case "uri":
			return "https://x.test/a"
		}
		n := 3
		if m, ok := s["minLength"].(int); ok && m > n {
			n = m
		}
		if m, ok := s["maxLength"].(int); ok && m < n {
			n = m
		}
		plain := strings.Repeat("a", n)
		if p, ok := s["pattern"].(string); ok {
			if ok, _ := regexp.MatchString(p, plain); !ok {
				if v, ok := matching(p); ok {
					return v
				}
			}
		}
		return plain
	}
	return "x"
}

// matching makes a string a pattern matches, when Go's regexp reads it:
// the shortest walk of its syntax tree.
func matching(pattern string) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	var walk func(r *syntax.Regexp, depth int)
	walk = func(r *syntax.Regexp, depth int) {
		if depth > 64 || b.Len() > 256 {
			return
		}
		switch r.Op {
		case syntax.OpLiteral:
			b.WriteString(string(r.Rune))
		case syntax.OpCharClass:
			if len(r.Rune) > 0 {
				c := r.Rune[0]
				if c < '0' && r.Rune[1] >= 'a' {
					c = 'a' // a readable character where the class allows one
				}
				b.WriteRune(c)
			}
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			b.WriteByte('a')
		case syntax.OpCapture, syntax.OpPlus:
			walk(r.Sub[0], depth+1)
		case syntax.OpRepeat:
			for i := 0; i < r.Min && i < 64; i++ {
				walk(r.Sub[0], depth+1)
			}
		case syntax.OpConcat:
			for _, sub := range r.Sub {
				walk(sub, depth+1)
			}
		case syntax.OpAlternate:
			walk(r.Sub[0], depth+1)
		}
	}
	walk(re, 0)
	if ok, _ := regexp.MatchString(pattern, b.String()); !ok {
		return "", false
	}
	return b.String(), true
}

type variant struct {
	class, what string
	value       any
}

// invalid makes values that break one rule of the schema each, and a
// few valid ones of the composition keywords.
func (g prismGen) invalid(v any, wire bool) []variant {
	s := g.resolve(v)
	if s == nil {
		return nil
	}
	var out []variant
	ty := schemaType(s)
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		if ty == "integer" || ty == "number" {
			out = append(out, variant{"enum", "outside the enum", 987654})
		} else {
			out = append(out, variant{"enum", "outside the enum", "zz-not-listed"})
		}
	}
	switch ty {
	case "integer", "number", "boolean":
		out = append(out, variant{"type", "a word for " + ty, "abc"})
		if ty == "integer" {
			out = append(out, variant{"type", "a fraction for an integer", 1.5})
		}
	case "string":
		if !wire {
			out = append(out, variant{"type", "a number for a string", 12})
		}
	case "object", "array":
		if !wire {
			out = append(out, variant{"type", "a string for " + ty, "abc"})
		}
	}
	if !wire && !nullable(s) && ty != "" {
		out = append(out, variant{"composition", "null where not nullable", nil})
	}
	if !wire && nullable(s) {
		out = append(out, variant{"composition", "null where nullable", nil})
	}
	if f, ok := s["format"].(string); ok {
		out = append(out, variant{"format", "not a " + f, "not-a-" + f})
	}
	if _, ok := s["pattern"].(string); ok {
		out = append(out, variant{"pattern", "against the pattern", "~~ !"})
	}
	_, patterned := s["pattern"]
	if m, ok := s["minLength"].(int); ok && m > 0 {
		out = append(out, variant{"length", "below minLength", strings.Repeat("a", m-1)})
		if !patterned && s["format"] == nil {
			out = append(out, variant{"length", "at minLength", strings.Repeat("a", m)})
		}
	}
	if m, ok := s["maxLength"].(int); ok {
		out = append(out, variant{"length", "above maxLength", strings.Repeat("a", m+1)})
		if !patterned && s["format"] == nil {
			out = append(out, variant{"length", "at maxLength", strings.Repeat("a", m)})
		}
	}
	if m, ok := s["minimum"].(int); ok {
		out = append(out, variant{"range", "below the minimum", m - 1}, variant{"range", "at the minimum", m})
	}
	if m, ok := s["maximum"].(int); ok {
		out = append(out, variant{"range", "above the maximum", m + 1}, variant{"range", "at the maximum", m})
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		out = append(out, variant{"enum", "the last enum value", e[len(e)-1]})
	}
	if f, ok := s["format"].(string); ok && s["enum"] == nil {
		out = append(out, variant{"format", "a valid " + f, g.valid(map[string]any{"type": "string", "format": f}, 0)})
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		alts, _ := s[k].([]any)
		for i, a := range alts {
			out = append(out, variant{"composition", fmt.Sprintf("%s branch %d", k, i), g.valid(a, 1)})
		}
		if len(alts) > 0 && !wire && ty == "" {
			out = append(out, variant{"composition", k + " matching no branch", []any{}})
		}
	}
	return out
}

// wireText is a parameter value as a URL carries it.
func wireText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

// prismCases builds the calls of each operation: a valid one, then one
// per broken rule of a parameter or body field.
func prismCases(doc map[string]any) []prismCase {
	g := prismGen{doc}
	paths, _ := doc["paths"].(map[string]any)
	var names []string
	for p := range paths {
		names = append(names, p)
	}
	sort.Strings(names)
	var out []prismCase
	for _, p := range names {
		item, _ := paths[p].(map[string]any)
		for _, method := range []string{"get", "put", "post", "delete", "patch"} {
			op, ok := item[method].(map[string]any)
			if !ok {
				continue
			}
			ci := callIndexByMethod(strings.ToUpper(method))
			if ci < 0 {
				continue
			}
			type param struct {
				name, in string
				required bool
				schema   any
			}
			var params []param
			seen := map[string]bool{}
			for _, list := range []any{op["parameters"], item["parameters"]} {
				ps, _ := list.([]any)
				for _, x := range ps {
					pm := g.resolve(x)
					if pm == nil {
						continue
					}
					name, _ := pm["name"].(string)
					in, _ := pm["in"].(string)
					if seen[in+" "+name] {
						continue
					}
					seen[in+" "+name] = true
					req, _ := pm["required"].(bool)
					params = append(params, param{name, in, req || in == "path", pm["schema"]})
				}
			}
			var bodySchema any
			hasBody := calls[ci].HasPayload
			bodyMissing := false
			if rb := g.resolve(op["requestBody"]); rb != nil {
				bodyMissing = rb["required"] == true && !hasBody
				content, _ := rb["content"].(map[string]any)
				mt, ok := content["application/json"].(map[string]any)
				if !ok {
					continue // no JSON body: not what the literal checks read
				}
				bodySchema = mt["schema"]
			} else if hasBody {
				continue // Prism refuses any body where none is declared
			}
			base := prismCase{class: "valid", what: "valid", method: strings.ToUpper(method), path: p,
				callName: calls[ci].Name, hasBody: hasBody, untypedNullable: g.untypedNullable(bodySchema, 0, map[string]bool{}), bodyMissing: bodyMissing}
			values := map[string]string{}
			for _, pr := range params {
				if pr.required || pr.in == "path" {
					values[pr.in+" "+pr.name] = wireText(g.valid(pr.schema, 0))
				}
			}
			build := func(over map[string]string) prismCase {
				c := base
				for _, pr := range params {
					_, sent := values[pr.in+" "+pr.name]
					if _, o := over[pr.in+" "+pr.name]; o {
						sent = true
					}
					if s := g.resolve(pr.schema); sent && s != nil && s["oneOf"] != nil {
						c.oneOfParam = true
					}
				}
				for _, s := range strings.Split(strings.Trim(p, "/"), "/") {
					if openapi.IsParam(s) {
						k := "path " + strings.Trim(s, "{}")
						v, ok := over[k]
						if !ok {
							v = values[k]
						}
						c.segs = append(c.segs, v)
					} else {
						c.segs = append(c.segs, s)
					}
				}
				for _, pr := range params {
					if pr.in != "query" && pr.in != "header" {
						continue
					}
					k := pr.in + " " + pr.name
					v, ok := over[k]
					if !ok {
						v, ok = values[k]
					}
					if !ok {
						continue
					}
					if pr.in == "query" {
						c.query = append(c.query, [2]string{pr.name, v})
					} else {
						c.headers = append(c.headers, [2]string{pr.name, v})
					}
				}
				return c
			}
			var body any
			if hasBody {
				body = g.valid(bodySchema, 0)
			}
			c := build(nil)
			c.body = body
			out = append(out, c)
			for _, pr := range params {
				if pr.in != "path" && pr.in != "query" && pr.in != "header" {
					continue
				}
				if s := g.resolve(pr.schema); s == nil || schemaType(s) == "array" || schemaType(s) == "object" {
					continue
				}
				for _, v := range g.invalid(pr.schema, true) {
					c := build(map[string]string{pr.in + " " + pr.name: wireText(v.value)})
					c.class, c.what, c.body = v.class, pr.in+" "+pr.name+": "+v.what, body
					out = append(out, c)
				}
			}
			if hasBody {
				for _, bv := range bodyVariants(g, bodySchema, body, "payload", 0) {
					c := build(nil)
					c.class, c.what, c.body = bv.class, bv.what, bv.value
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// bodyVariants breaks one rule at a time of a body, its fields and
// theirs (two levels down).
func bodyVariants(g prismGen, schema any, valid any, at string, depth int) []variant {
	s := g.resolve(schema)
	if s == nil || depth > 2 {
		return nil
	}
	var out []variant
	for _, v := range g.invalid(schema, false) {
		if depth == 0 && v.value == nil {
			continue // the platform's payload is an object: a null one is no call to judge
		}
		out = append(out, variant{v.class, at + ": " + v.what, v.value})
	}
	obj, isObj := valid.(map[string]any)
	if !isObj {
		if arr, ok := valid.([]any); ok && len(arr) > 0 {
			for _, v := range bodyVariants(g, s["items"], arr[0], at+"[0]", depth+1) {
				class := v.class
				if class != "composition" && class != "valid" {
					class = "items"
				}
				out = append(out, variant{class, v.what, []any{v.value}})
			}
		}
		return out
	}
	with := func(k string, v any, drop bool) map[string]any {
		m := make(map[string]any, len(obj)+1)
		for kk, vv := range obj {
			m[kk] = vv
		}
		if drop {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	req, props := g.flatten(s, 0)
	for _, r := range req {
		if k, ok := r.(string); ok {
			if _, there := obj[k]; there {
				out = append(out, variant{"required", at + ": without " + k, with(k, nil, true)})
			}
		}
	}
	if s["additionalProperties"] == false {
		out = append(out, variant{"additionalProperties", at + ": an unknown field", with("zzUnknown", 1, false)})
	}
	var keys []string
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, there := obj[k]; !there {
			continue
		}
		for _, v := range bodyVariants(g, props[k], obj[k], at+"."+k, depth+1) {
			out = append(out, variant{v.class, v.what, with(k, v.value, false)})
		}
	}
	return out
}

// flatten collects the required names and properties of a schema and
// of its allOf parts.
func (g prismGen) flatten(s map[string]any, depth int) ([]any, map[string]any) {
	req, _ := s["required"].([]any)
	props := map[string]any{}
	if p, ok := s["properties"].(map[string]any); ok {
		for k, v := range p {
			props[k] = v
		}
	}
	all, _ := s["allOf"].([]any)
	for _, a := range all {
		if as := g.resolve(a); as != nil && depth < 8 {
			r, p := g.flatten(as, depth+1)
			req = append(req, r...)
			for k, v := range p {
				props[k] = v
			}
		}
	}
	return req, props
}

// composedDescription is a 3.0 description of the composition keywords
// and the cases where Prism or restls is known to differ: nullable beside
// a oneOf without type, branches of a oneOf that overlap, a lookahead
// pattern.
func composedDescription(t *testing.T) []byte {
	t.Helper()
	ref := func(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }
	obj := func(required []any, props map[string]any) map[string]any {
		return map[string]any{"type": "object", "required": required, "properties": props}
	}
	str := map[string]any{"type": "string"}
	ok := map[string]any{"200": map[string]any{"description": "ok", "content": map[string]any{"application/json": map[string]any{"schema": str, "example": "ok"}}}}
	body := func(schema string) map[string]any {
		return map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": ref(schema)}}}
	}
	doc := map[string]any{
		"openapi": "3.0.3",
		"info":    map[string]any{"title": "Composed", "version": "1"},
		"paths": map[string]any{
			"/pets": map[string]any{
				"get": map[string]any{"responses": ok, "parameters": []any{
					map[string]any{"name": "name", "in": "query", "schema": map[string]any{"type": "string", "pattern": "^(?!admin)[a-z]+$", "example": "rex"}},
					map[string]any{"name": "size", "in": "query", "schema": map[string]any{"type": "integer", "minimum": 1, "maximum": 9}},
				}},
				"post": map[string]any{"responses": ok, "requestBody": body("Pet")},
			},
			"/labels": map[string]any{"post": map[string]any{"responses": ok, "requestBody": body("Label")}},
			"/owners": map[string]any{"post": map[string]any{"responses": ok, "requestBody": body("Owned")}},
		},
		"components": map[string]any{"schemas": map[string]any{
			"Pet": map[string]any{"allOf": []any{
				obj([]any{"name"}, map[string]any{"name": map[string]any{"type": "string", "minLength": 2, "maxLength": 8}}),
				obj([]any{"kind"}, map[string]any{
					"kind": map[string]any{"type": "string", "enum": []any{"cat", "dog"}},
					"size": map[string]any{"anyOf": []any{map[string]any{"type": "integer", "minimum": 1}, map[string]any{"type": "string", "enum": []any{"small", "big"}}}},
					"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string", "maxLength": 4}},
					"note": map[string]any{"type": "string", "nullable": true, "maxLength": 5},
				}),
			}},
			"Owned": obj([]any{"name"}, map[string]any{
				"name":  map[string]any{"type": "string", "maxLength": 3},
				"owner": map[string]any{"nullable": true, "oneOf": []any{ref("Person"), ref("Org")}},
			}),
			"Person": map[string]any{"type": "object", "additionalProperties": false, "required": []any{"first"}, "properties": map[string]any{"first": str}},
			"Org":    map[string]any{"type": "object", "additionalProperties": false, "required": []any{"org"}, "properties": map[string]any{"org": str}},
			"Label": obj([]any{"text"}, map[string]any{"text": map[string]any{"oneOf": []any{
				map[string]any{"type": "string", "maxLength": 5}, map[string]any{"type": "string", "pattern": "^[a-z]+$"}}}}),
		}},
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
