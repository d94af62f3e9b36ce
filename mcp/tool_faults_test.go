package mcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/restls/restls/engine"
	"github.com/restls/restls/faults"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/workspace"
)

// faultScript reads an order and tells a 404 from other failures by its
// status: a failure without one (a timeout) crashes it.
const faultScript = `var r;
try {
  r = api.rest.v1.get("orders", {pathParams: ["orders", context.input.id]}, {});
} catch (e) {
  if (e.status.code === 404) return "missing";
  return "failed";
}
return r.body.status;
`

const faultFixtures = "- {serviceId: orders, method: GET, path: orders/42, body: {id: \"42\", status: paid}}\n"

// fixtureOnly is an in-process engine's Run that fails t when a run is
// not answered by parsed fixtures alone: the faults tool never reaches a
// service.
func fixtureOnly(t *testing.T, runs *int) Runner {
	run := engine.New(engine.Options{Isolation: engine.InProcess}).Run
	return func(ctx context.Context, snap workspace.Snapshot, req engine.Request) (*dryrun.Result, error) {
		*runs++
		if f := req.Fixtures; f.Parsed == nil || f.Live || f.Record != "" || f.File != "" || f.Inline != nil {
			t.Errorf("a fault run not answered by parsed fixtures only: %+v", f)
		}
		return run(ctx, snap, req)
	}
}

// TestFaults: the faults tool explores a script's failure paths from
// fixtures given inline, as a file or beside the script, and answers
// each finding with its call site's line, serviceId, method and path,
// its outcome and verdict; ok is false when something crashed.
func TestFaults(t *testing.T) {
	root := testProject(t)
	for name, data := range map[string]string{"scripts/pay.js": faultScript, "scripts/pay.mock.yaml": faultFixtures, "other.yaml": faultFixtures} {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	o := testOptions(t, root)
	runs := 0
	o.Tests = fixtureOnly(t, &runs)
	cs := connect(t, o)
	outcomes := []string{"500", "404", "connect-timeout"}
	input := map[string]any{"id": "42"}
	for _, args := range []map[string]any{
		{"path": "scripts/pay.js", "input": input, "outcomes": outcomes},
		{"text": faultScript, "fixtures": faultFixtures, "input": input, "outcomes": outcomes},
		{"text": faultScript, "fixturesFile": "other.yaml", "input": input, "outcomes": outcomes},
	} {
		runs = 0
		var out FaultsOut
		if res := call(t, cs, "faults", args, &out); res.IsError {
			t.Fatalf("%v: %s", args, errorText(res))
		}
		// In the explorer's order (a documented status first): by outcome.
		got := []string{}
		by := map[string]FaultFinding{}
		for _, f := range out.Findings {
			got = append(got, f.Outcome+"="+string(f.Verdict)+"@"+f.ServiceID+" "+f.Method+" "+f.Path+":"+strconv.Itoa(f.Line))
			by[f.Outcome] = f
		}
		slices.Sort(got)
		want := "404=handled@orders GET orders/42:3 500=handled@orders GET orders/42:3 connect-timeout=crashed@orders GET orders/42:3"
		if strings.Join(got, " ") != want || len(out.Sites) != 1 || out.Runs != 3 || out.OK || out.Verdicts["crashed"] != 1 || out.Verdicts["handled"] != 2 {
			t.Errorf("%v:\n%s\nwant\n%s\n%s", args, strings.Join(got, " "), want, mustJSON(t, out))
		}
		if string(by["404"].Result) != `"missing"` || by["connect-timeout"].Error == nil || by["connect-timeout"].Error.Name != "TypeError" {
			t.Errorf("%v: what the script did: %s", args, mustJSON(t, out.Findings))
		}
		if runs != 4 {
			t.Errorf("%v: %d runs, want 4 (the successful one and 3 reruns)", args, runs)
		}
	}
	// The verdicts that fail the script: the call's, else the project
	// file's faults.fail, else crashed and misread.
	for _, tc := range []struct {
		project, call []string
		want          string
		ok            bool
	}{
		{nil, nil, "crashed misread", false},
		{nil, []string{"unanswered"}, "unanswered", true},
		{[]string{"escaped"}, nil, "escaped", true},
		{[]string{"escaped"}, []string{"crashed"}, "crashed", false},
		{[]string{}, nil, "", true},
	} {
		po := o
		if tc.project != nil {
			var err error
			if po.FaultsFail, err = faults.ParseVerdicts(tc.project); err != nil {
				t.Fatal(err)
			}
		}
		var out FaultsOut
		call(t, connect(t, po), "faults", map[string]any{"path": "scripts/pay.js", "input": input, "outcomes": outcomes, "fail": tc.call}, &out)
		var got []string
		for _, v := range out.Fail {
			got = append(got, string(v))
		}
		if strings.Join(got, " ") != tc.want || out.OK != tc.ok {
			t.Errorf("project %q, call %q: fail %q, ok %v; want %q, %v", tc.project, tc.call, got, out.OK, tc.want, tc.ok)
		}
	}
	outside := filepath.Join(t.TempDir(), "outside.yaml")
	if err := os.WriteFile(outside, []byte(faultFixtures), 0o600); err != nil {
		t.Fatal(err)
	}
	// Bounded as restls faults: maxRuns cuts, and says how many pairs.
	var out FaultsOut
	call(t, cs, "faults", map[string]any{"path": "scripts/pay.js", "input": input, "outcomes": outcomes, "maxRuns": 2}, &out)
	if out.Runs != 2 || out.Cut != 1 {
		t.Errorf("maxRuns 2: %d runs, %d cut", out.Runs, out.Cut)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"text": faultScript, "input": input}, "faults are explored from a run that succeeds"},
		{map[string]any{"path": "scripts/pay.js", "input": input, "outcomes": []string{"teapot"}}, `outcome "teapot": use one of 500`},
		{map[string]any{"path": "scripts/pay.js", "maxRuns": 100000}, "maxRuns 100000: give 1 to"},
		{map[string]any{"path": "scripts/pay.js", "fail": []string{"handled"}}, `fail: verdict "handled"`},
		{map[string]any{"path": "scripts/pay.js", "outcomes": make([]string, 501)}, "501 outcomes, above the 500 limit"},
		{map[string]any{"path": "scripts/pay.js", "fixtures": "- {method: GET}"}, "the fixtures do not load"},
		{map[string]any{"path": "scripts/pay.js", "fixtures": "[]", "fixturesFile": "other.yaml"}, "not both"},
		{map[string]any{"path": "scripts/pay.js", "fixturesFile": outside}, "outside the project root"},
		{map[string]any{"path": "scripts/pay.js", "fixtures": strings.Repeat("#", 5<<20)}, "above the"},
	} {
		res := call(t, cs, "faults", tc.args, nil)
		if !res.IsError || !strings.Contains(errorText(res), tc.want) {
			t.Errorf("%.200v: IsError %v, %q; want %q", tc.args, res.IsError, cut(errorText(res), 300), tc.want)
		}
	}
	// A refusal of the runner (on /mcp the gate's) is the call's error.
	o.Tests = func(context.Context, workspace.Snapshot, engine.Request) (*dryrun.Result, error) {
		return nil, errors.New("dry runs need the role mocker (with fixtures) or runner; vera has the role viewer")
	}
	if res := call(t, connect(t, o), "faults", map[string]any{"path": "scripts/pay.js", "input": input}, nil); !res.IsError || !strings.Contains(errorText(res), "role mocker") {
		t.Errorf("refused: %v %q", res.IsError, errorText(res))
	}
}

// TestFaultsHangBounded: a script that hangs after a failure holds the
// faults and test tools no longer than a call may take, and the answer
// says so and what to do.
func TestFaultsHangBounded(t *testing.T) {
	root := testProject(t)
	hang := strings.Replace(faultScript, `return "failed";`, `while (true) {}`, 1)
	test := "script: hang.js\ninput: {id: \"42\"}\nfixtures:\n  - {serviceId: orders, method: GET, path: orders/42, status: 500}\nresult: failed\n"
	for name, data := range map[string]string{"scripts/hang.js": hang, "scripts/hang.test.yaml": test} {
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	o := testOptions(t, root)
	// The script spins until the call's time runs out: the bound, not its
	// length, is what is checked, and each spinning second is a second of CPU.
	o.Limits.Time = 300 * time.Millisecond
	o.Tests = engine.New(engine.Options{Isolation: engine.InProcess, Limits: engine.Limits{Timeout: time.Minute}}).Run
	cs := connect(t, o)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"faults", map[string]any{"path": "scripts/hang.js", "fixtures": faultFixtures, "input": map[string]any{"id": "42"}, "outcomes": []string{"500"}}, "the exploration took longer than a call may (300ms)"},
		{"test", map[string]any{"path": "scripts/hang.test.yaml"}, "the test file's cases took longer than a call may (300ms)"},
	} {
		start := time.Now()
		res := call(t, cs, c.tool, c.args, nil)
		if took := time.Since(start); took > 30*time.Second {
			t.Errorf("%s answered after %v", c.tool, took)
		}
		if !res.IsError || !strings.Contains(errorText(res), c.want) {
			t.Errorf("%s: IsError %v, %q; want %q", c.tool, res.IsError, errorText(res), c.want)
		}
	}
}
