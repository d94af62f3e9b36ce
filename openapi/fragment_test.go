package openapi

import (
	"strings"
	"testing"
)

// FuzzRecordedFragment: whatever fixture files record, the fragment
// restls fixtures schema writes from them loads as a description with
// one operation per recorded call of the serviceId, and no problem.
func FuzzRecordedFragment(f *testing.F) {
	f.Add("fixtures:\n  - serviceId: s\n    path: a/*\n    body: {id: 1, n: [1, \"x\", null, {k: true}]}\n  - serviceId: s\n    path: a/*\n    body: {id: \"2\"}\n", "")
	f.Add(`[{"serviceId": "s", "method": "post", "path": "x", "status": 201, "body": `+strings.Repeat(`{"a": [`, 40)+strings.Repeat(`]}`, 40)+`}]`, `[{"serviceId": "s", "path": "x", "status": 500}]`)
	f.Add("fixtures:\n  - serviceId: s\n    path: a/*\n    body: 1\n  - serviceId: s\n    path: a/?\n    body: 2\n  - serviceId: s\n    method: \"a: b\"\n    path: a\n", "")
	f.Add("fixtures:\n  - serviceId: s\n    path: \"\"\n    body: {\"quote\\\"d\": {\"\": 1}, \"#\": [], \"a: b\": null}\n", "fixtures: []\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		var idxs []*Index
		for i, data := range []string{a, b} {
			idx, err := BuildRecorded([]string{"a.mock.yaml", "b.mock.yaml"}[i], []byte(data))
			if err == nil {
				idxs = append(idxs, idx)
			}
		}
		out, n := RecordedFragment("s", idxs, func(s string) string { return s })
		idx, err := Build("s.yaml", out)
		if err != nil {
			t.Fatalf("the fragment does not load: %v\n%s", err, out)
		}
		if len(idx.Ops) != n || len(idx.Problems) != 0 {
			t.Fatalf("%d operations (want %d), problems %v\n%s", len(idx.Ops), n, idx.Problems, out)
		}
	})
}
