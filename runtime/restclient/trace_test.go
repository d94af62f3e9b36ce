package restclient

import (
	"strconv"
	"strings"
	"testing"
)

// sensitiveHeader's ASCII fast path must agree with lowering the name.
func TestSensitiveHeaderMatchesLowering(t *testing.T) {
	t.Parallel()
	names := []string{"Authorization", "authorization", "AUTHORIZATION", "Proxy-Authorization", "Cookie", "Set-Cookie",
		"X-Auth-Token", "X-TOKEN", "Client-Secret", "X-Password-Hint", "X-Passwd", "PASSWD", "X-Api-Key", "ApiKey", "Accept", "Content-Type",
		"Authorizatio", "Authorization2", "Cookies", "tok", "", "X-Ünicode-Token", "\u212aeep"}
	for _, n := range names {
		if got, want := sensitiveHeader(n), sensitiveHeaderSlow(n); got != want {
			t.Errorf("sensitiveHeader(%q) = %v, lowering says %v", n, got, want)
		}
	}
	if !sensitiveHeader("X-Auth-TOKEN") || sensitiveHeader("Accept") {
		t.Error("sensitiveHeader: wrong answer for X-Auth-TOKEN or Accept")
	}
}

// TestSensitiveHeaderIsTheOneRule: every surface shows headers as this rule
// masks them (the VS Code extension and the designer keep no list). It
// covers what the extension's own list used to mask, passwd included; not
// "credential", which would hide Access-Control-Allow-Credentials (a CORS
// flag, never a secret) in every trace (docs/decisions.md, "One preview
// component").
func TestSensitiveHeaderIsTheOneRule(t *testing.T) {
	t.Parallel()
	for _, n := range []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "Api-Key", "ApiKey",
		"X-Partner-Api-Key", "X-Auth-Token", "Client-Secret", "X-Password", "X-Passwd", "DB-PASSWD"} {
		if !sensitiveHeader(n) || !sensitiveHeaderSlow(n) {
			t.Errorf("%s is not masked", n)
		}
		if got := maskHeader(n, "s3cr3t-value"); got != "***" {
			t.Errorf("maskHeader(%s) = %q, want ***", n, got)
		}
	}
	for _, n := range []string{"Accept", "Content-Type", "Access-Control-Allow-Credentials", "X-Request-Id"} {
		if sensitiveHeader(n) {
			t.Errorf("%s is masked", n)
		}
	}
}

func TestTrimStatusCode(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		status string
		code   int
		want   string
	}{
		{"200 OK", 200, " OK"},
		{"404 Not Found", 404, " Not Found"},
		{"200", 200, ""},
		{"201 Created", 200, "201 Created"},
		{"OK", 200, "OK"},
		{"", 200, ""},
		{"99 Odd", 99, " Odd"},
	} {
		if got := trimStatusCode(c.status, c.code); got != c.want || got != strings.TrimPrefix(c.status, strconv.Itoa(c.code)) {
			t.Errorf("trimStatusCode(%q, %d) = %q, want %q", c.status, c.code, got, c.want)
		}
	}
}
