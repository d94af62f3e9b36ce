package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditRotates: the audit file is created private, appended to, and
// rotated by size, keeping every line whole.
func TestAuditRotates(t *testing.T) {
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
	for range 3000 { // 3000 lines of ~500 bytes: past 1 MB
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
