package restclient

import (
	"strconv"
	"strings"
	"testing"
)

// sensitiveHeader's ASCII fast path must agree with lowering the name.
func TestSensitiveHeaderMatchesLowering(t *testing.T) {
	names := []string{"Authorization", "authorization", "AUTHORIZATION", "Proxy-Authorization", "Cookie", "Set-Cookie",
		"X-Auth-Token", "X-TOKEN", "Client-Secret", "X-Password-Hint", "X-Api-Key", "ApiKey", "Accept", "Content-Type",
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

func TestTrimStatusCode(t *testing.T) {
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
