package curlin_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/runtime/curlin"
	"github.com/restls/restls/runtime/restclient"
)

// TestRoundTripOfOurCurlExport: a call sent by restclient, exported as
// `restls run --curl` writes it (Call.CurlCommand) and pasted back, gives
// the call that was sent.
func TestRoundTripOfOurCurlExport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	xml := fmt.Sprintf(`<scriptservice>
  <api serviceId="svc" url="%[1]s/api"/>
  <api serviceId="items" url="svc/items"/>
  <api serviceId="basic" url="%[1]s/b"><authorization type="basic"><encodedCredentials>dXNlcjpwYXNzd29yZA==</encodedCredentials></authorization></api>
</scriptservice>`, srv.URL)
	read := func(p string) ([]byte, error) {
		if p == "/cfg/services.xml" {
			return []byte(xml), nil
		}
		return nil, fs.ErrNotExist
	}
	reg := config.LoadWith(config.Sources{ServiceXML: "/cfg/services.xml", HandlerXML: "/cfg/services.xml"}, read).For(config.ScriptService)
	session := restclient.New(restclient.Options{}).Session(reg)
	defer session.Close()

	for _, tc := range []struct {
		name string
		req  restclient.Request
		// notes are substrings of the notes expected, in order.
		notes []string
	}{
		{"get", restclient.Request{ServiceID: "svc", Method: "GET"}, nil},
		{"get with path and query", restclient.Request{ServiceID: "svc", Method: "GET",
			PathParams: []string{"a b", "c/d", "é", "50%"},
			Query:      []restclient.QueryParam{{Name: "q", Value: "x y&z=1"}, {Name: "empty", Value: ""}, {Name: "plus", Value: "1+1"}}}, nil},
		{"longest prefix", restclient.Request{ServiceID: "items", Method: "DELETE", PathParams: []string{"42"}}, nil},
		{"post with headers", restclient.Request{ServiceID: "svc", Method: "POST", PathParams: []string{"orders"},
			Header: []restclient.HeaderField{{Name: "X-Request-Id", Value: "r-1"}, {Name: "Accept", Value: "application/vnd.x+json"}},
			Body:   json.RawMessage(`{"name":"Ada 'L'","n":[1,2.5,{"x":null}],"ok":true}`)}, nil},
		{"put with control characters in the body", restclient.Request{ServiceID: "svc", Method: "PUT",
			Body: json.RawMessage("{\n\t\"a\": \"\\u0001\",\n  \"b\": 1\n}\n")}, nil},
		{"body starting with a dash survives printf", restclient.Request{ServiceID: "svc", Method: "PATCH",
			Body: json.RawMessage("-1\n")}, nil},
		{"large body", restclient.Request{ServiceID: "svc", Method: "POST",
			Body: json.RawMessage(`{"big":"` + strings.Repeat("x", 2000) + `"}`)}, nil},
		{"multipart", restclient.Request{ServiceID: "svc", Method: "POST",
			Header: []restclient.HeaderField{{Name: "Content-Type", Value: "multipart/form-data"}},
			Body:   json.RawMessage(`{"name":"Ada","file":"@not-a-file"}`)}, nil},
		{"configured basic authorization", restclient.Request{ServiceID: "basic", Method: "GET", PathParams: []string{"x"}},
			[]string{`The Authorization header is left out: serviceId "basic" has basic authorization configured`}},
		{"a secret header becomes a variable", restclient.Request{ServiceID: "svc", Method: "GET",
			Header: []restclient.HeaderField{{Name: "X-Api-Key", Value: "k3y-value"}}},
			[]string{"$RESTLS_X_API_KEY_SVC is a shell variable"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			_, sent, err := session.Do(context.Background(), &req)
			if err != nil {
				t.Fatal(err)
			}
			curl := sent.CurlCommand()
			if curl == "" {
				t.Fatal("no curl export")
			}
			call, err := curlin.FromCurl(curl, reg)
			if err != nil {
				t.Fatalf("%v\n%s", err, curl)
			}
			if call.ServiceID != req.ServiceID || call.Function != strings.ToLower(req.Method) {
				t.Errorf("%s %s, want %s %s", call.Function, call.ServiceID, req.Method, req.ServiceID)
			}
			if !slices.Equal(call.PathParams, req.PathParams) {
				t.Errorf("pathParams %q, want %q", call.PathParams, req.PathParams)
			}
			var wantQuery []curlin.Param
			for _, q := range req.Query {
				wantQuery = append(wantQuery, curlin.Param{Name: q.Name, Value: q.Value})
			}
			if !slices.Equal(call.Query, wantQuery) {
				t.Errorf("queryParams %q, want %q", call.Query, wantQuery)
			}
			var wantHeader []curlin.Param
			for _, h := range req.Header {
				if strings.EqualFold(h.Name, "X-Api-Key") {
					h.Value = "$" + restclient.EnvName("X-Api-Key", req.ServiceID)
				}
				wantHeader = append(wantHeader, curlin.Param{Name: h.Name, Value: h.Value})
			}
			slices.SortFunc(wantHeader, func(a, b curlin.Param) int { return strings.Compare(a.Name, b.Name) })
			if !slices.Equal(call.Header, wantHeader) {
				t.Errorf("header %q, want %q", call.Header, wantHeader)
			}
			switch {
			case req.Body == nil && (req.Method == "GET" || req.Method == "DELETE"):
				if call.Payload != nil {
					t.Errorf("payload %s, want none", call.Payload)
				}
			case !bytes.Equal(call.Payload, bytes.TrimSpace(req.Body)) && !jsonEqual(call.Payload, req.Body):
				t.Errorf("payload %s, want %s", call.Payload, req.Body)
			}
			if len(call.Notes) != len(tc.notes) {
				t.Fatalf("notes %q, want %q\n%s", call.Notes, tc.notes, curl)
			}
			for i, n := range tc.notes {
				if !strings.Contains(call.Notes[i], n) {
					t.Errorf("note %q, want it to hold %q", call.Notes[i], n)
				}
			}
		})
	}
}

// jsonEqual compares two JSON texts as values (a multipart payload is
// rebuilt from the form fields).
func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}
