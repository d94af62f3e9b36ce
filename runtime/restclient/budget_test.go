package restclient

import (
	"strings"
	"testing"

	"github.com/restls/restls/config"
)

func budgetEvents(c *Call) []Event {
	var out []Event
	for _, e := range c.Events {
		if e.Kind == EventBudget {
			out = append(out, e)
		}
	}
	return out
}

// TestTimeoutBudgetLive: a live answer after 80% of the read timeout in
// force gets the timeout-budget event, traced or not; a quick one, and one
// that timed out, do not.
func TestTimeoutBudgetLive(t *testing.T) {
	// Not in parallel: a 0.8 s answer must come within its 1000 ms read
	// timeout, which tests beside it would stretch. (0.4 s within 480 ms
	// failed at load 12: 200 ms of room, not 80.)
	srv := httpbinServer(t)
	reg := loadRegistry(t, config.ScriptService, servicesXML(api("bin", srv.URL, "")))
	for _, trace := range []bool{false, true} {
		s := New(Options{Trace: trace}).Session(reg)
		_, call, err := do(t, s, &Request{ServiceID: "bin", PathParams: []string{"delay", "0.8"}, ReadTimeoutMs: 1000})
		if err != nil {
			t.Fatal(err)
		}
		ev := budgetEvents(call)
		if len(ev) != 1 || !strings.Contains(ev[0].Message, "of the 1000 ms read timeout in force") {
			t.Errorf("trace %v: events %+v (read wait %.0f ms)", trace, call.Events, call.ReadWaitMs())
		}
		_, call, err = do(t, s, &Request{ServiceID: "bin", PathParams: []string{"get"}, ReadTimeoutMs: 3000})
		if err != nil || len(budgetEvents(call)) != 0 {
			t.Errorf("trace %v: a quick answer: %v %+v", trace, err, call.Events)
		}
		_, call, err = do(t, s, &Request{ServiceID: "bin", PathParams: []string{"delay", "2"}, ReadTimeoutMs: 100})
		if err == nil || len(budgetEvents(call)) != 0 {
			t.Errorf("trace %v: a timed out call: %v %+v", trace, err, call.Events)
		}
	}
}

// TestTimeoutBudgetFixtureDelay: a fixture's delay counts as the answer's
// time, against the registry's default read timeout.
func TestTimeoutBudgetFixtureDelay(t *testing.T) {
	t.Parallel()
	reg := loadRegistry(t, config.ScriptService, servicesXML(api("a", "https://a.example/api", "")))
	m, err := ParseMock("f.yaml", []byte("fixtures:\n- {serviceId: a, path: slow, delay: 170ms, body: {}}\n- {serviceId: a, path: quick, body: {}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{Mock: m}).Session(reg)
	_, call, err := do(t, s, &Request{ServiceID: "a", PathParams: []string{"slow"}, ReadTimeoutMs: 200})
	if err != nil || len(budgetEvents(call)) != 1 {
		t.Errorf("slow fixture: %v %+v", err, call.Events)
	}
	_, call, err = do(t, s, &Request{ServiceID: "a", PathParams: []string{"quick"}, ReadTimeoutMs: 200})
	if err != nil || len(budgetEvents(call)) != 0 {
		t.Errorf("quick fixture: %v %+v", err, call.Events)
	}
}
