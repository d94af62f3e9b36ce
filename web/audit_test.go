package web

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAuditRotates: the audit file is created private, appended to, and
// rotated by size, keeping every line whole.
func TestAuditRotates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "audit.jsonl")
	a, err := OpenAudit(AuditOptions{File: file, MaxSizeMB: 1, MaxBackups: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Fatalf("the audit file %v: %v", fi.Mode(), err)
	}
	rec := AuditRecord{Event: "run", User: "u", Role: "runner", Auth: "oidc", Script: strings.Repeat("s", 400), Outcome: "returned"}
	for range 4000 { // 4000 lines of ~350 bytes: past 1 MB
		a.write(rec)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "audit-*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("rotated files: %v", files)
	}
	for _, f := range append(files, file) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if !strings.HasPrefix(line, "{") || !strings.HasSuffix(line, "}") {
				t.Fatalf("%s line %d is cut: %.60q", f, i+1, line)
			}
		}
	}
	if _, err := OpenAudit(AuditOptions{File: filepath.Join(dir, "missing", "x", "\x00")}); err == nil {
		t.Error("an audit path that cannot be opened was taken")
	}
}

// TestAuditBoundsFields: every text field is escaped as text output is
// (C1 controls, bidirectional overrides, separators) and cut to its
// bound with the count of what was cut; a run's calls past
// auditCallsMax are counted, not listed.
func TestAuditBoundsFields(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	a := &Audit{w: &b}
	long := "evil\u009b31m\u202egnp." + strings.Repeat("x", 1<<20) + ".js"
	calls := make([]AuditCall, 150)
	for i := range calls {
		calls[i] = AuditCall{ServiceID: "crm\u2028", Method: "GET", URL: "https://h/" + strings.Repeat("p", 5000)}
	}
	a.write(AuditRecord{Event: "run", User: "u\u202e", Role: "runner", Auth: "oidc", Remote: "1.2.3.4:5", ForwardedFor: "\x1b[2J",
		Script: long, Outcome: "returned", Calls: calls})
	line := strings.TrimSuffix(b.String(), "\n")
	if strings.Contains(line, "\n") {
		t.Fatalf("one record wrote several lines")
	}
	if len(line) > auditCallsMax*(auditURLMax+2*auditFieldMax+200)+16*auditFieldMax {
		t.Errorf("a record is %d bytes", len(line))
	}
	for _, raw := range []string{"\u009b", "\u202e", "\u2028", "\x1b"} {
		if strings.Contains(line, raw) {
			t.Errorf("the record holds %q raw", raw)
		}
	}
	var r AuditRecord
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Script, `evil\u009b31m\u202egnp.`) || !strings.Contains(r.Script, "bytes more)") || len(r.Script) > auditFieldMax+32 {
		t.Errorf("script %q", r.Script)
	}
	if r.User != `u\u202e` || r.ForwardedFor != `\x1b[2J` || r.Calls[0].ServiceID != `crm\u2028` {
		t.Errorf("user %q, forwardedFor %q, serviceId %q", r.User, r.ForwardedFor, r.Calls[0].ServiceID)
	}
	if len(r.Calls) != auditCallsMax || r.CallsOmitted != 50 || len(r.Calls[0].URL) > auditURLMax+32 {
		t.Errorf("%d calls listed, %d omitted, a URL of %d bytes", len(r.Calls), r.CallsOmitted, len(r.Calls[0].URL))
	}
}

// TestAuditText: the escaped, cut text is never longer than its bound
// plus the note, and text within it is kept whole.
func TestAuditText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"payments.js", "payments.js"},
		{"a\u202eb", `a\u202eb`},
		{strings.Repeat("\x1b", 10), strings.Repeat(`\x1b`, 4) + "...(6 bytes more)"},
		{strings.Repeat("é", 10), "éééééééé...(4 bytes more)"},
		{strings.Repeat("\x80", 20), strings.Repeat(`\x80`, 4) + "...(16 bytes more)"},
	} {
		if got := auditText(tc.in, 16); got != tc.want {
			t.Errorf("auditText(%q, 16) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestAuditRefusalsLimited: one user's refused attempts past
// refusedPerWindow in a window are counted, not written, and the count
// is written when the window ends (or the audit closes); other users and
// runs that were not refused are written as before.
func TestAuditRefusalsLimited(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	now := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	a := &Audit{w: &b, now: func() time.Time { return now }}
	refused := AuditRecord{Event: "run", User: "vera", Role: "viewer", Auth: "oidc", Outcome: "refused", Code: "role"}
	for range refusedPerWindow + 30 {
		a.write(refused)
	}
	a.write(AuditRecord{Event: "run", User: "ron", Role: "runner", Auth: "oidc", Outcome: "returned"})
	a.write(AuditRecord{Event: "reload", User: "mo", Role: "mocker", Auth: "oidc", Outcome: "refused"})
	now = now.Add(refusedWindow)
	a.write(refused) // a new window: the count of the last one first
	for range refusedPerWindow + 4 {
		a.write(refused)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		var r AuditRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		s := r.User + "/" + r.Outcome
		if r.Dropped > 0 {
			s += fmt.Sprintf("/%d/%s", r.Dropped, r.Since)
		}
		if len(got) > 0 && strings.HasSuffix(got[len(got)-1], "*"+s) {
			continue
		}
		if len(got) > 0 && got[len(got)-1] == s {
			got[len(got)-1] = "*" + s
			continue
		}
		got = append(got, s)
	}
	want := "*vera/refused ron/returned mo/refused vera/limited/30/2026-11-29T06:00:00Z *vera/refused vera/limited/5/2026-11-29T06:01:00Z"
	if strings.Join(got, " ") != want {
		t.Errorf("audit:\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	if n := strings.Count(b.String(), `"user":"vera","role":"viewer","auth":"oidc","outcome":"refused"`); n != 2*refusedPerWindow {
		t.Errorf("%d of vera's refusals written, want %d", n, 2*refusedPerWindow)
	}
}

// TestAuditRefusalSweepBounded: once refusalUsersMax users are counted,
// refusals of new users do not each walk the whole table: it is swept at
// most once per sweepEvery, and a sweep after the windows end frees room.
func TestAuditRefusalSweepBounded(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	a := &Audit{w: io.Discard, now: func() time.Time { return now }}
	for i := range refusalUsersMax + 2000 {
		a.write(AuditRecord{Event: "run", User: fmt.Sprint("u", i), Auth: "oidc", Outcome: "refused"})
	}
	if a.sweeps != 1 {
		t.Errorf("%d sweeps of the full table for 2000 new users in one instant, want 1", a.sweeps)
	}
	now = now.Add(refusedWindow)
	a.write(AuditRecord{Event: "run", User: "late", Auth: "oidc", Outcome: "refused"})
	if a.sweeps != 2 || a.refusals["oidc\x00late"] == nil {
		t.Errorf("after the windows ended: %d sweeps, late counted apart: %v", a.sweeps, a.refusals["oidc\x00late"] != nil)
	}
}
