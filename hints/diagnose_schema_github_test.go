package hints

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/restls/restls/internal/openapitest"
	"github.com/restls/restls/openapi"
)

// githubBadExamples are the examples of GitHub's description that break
// its own schemas (checked by hand, 2026-11-28): options without their
// required priority, repository ids written as strings where the schema
// says integer, a key that is no SSH key. They may be reported; any other
// finding is a false positive.
var githubBadExamples = map[string]bool{
	"POST /orgs/{org}/issue-fields":                           true,
	"PUT /user/codespaces/secrets/{secret_name}/repositories": true,
	"POST /user/keys":                                         true,
	"POST /user/ssh_signing_keys":                             true,
}

// TestGitHubExamplesPass: the request body examples of GitHub's own
// description (413 of them), sent as literal payloads to their
// operations, get no value finding but on the few that break their
// schema: the checks hold a real description's valid values valid (no
// false positives from its oneOf, nullable, readOnly, formats or
// patterns).
func TestGitHubExamplesPass(t *testing.T) {
	path := openapitest.GitHub(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := openapi.Build("api.github.com.json", data)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			RequestBody struct {
				Content map[string]struct {
					Examples map[string]struct {
						Value json.RawMessage `json:"value"`
					} `json:"examples"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	disp := Display{APIs: openapi.Attach(testRegistry(t), []openapi.Doc{{ServiceID: "crm", Index: idx}})}
	api, _ := disp.APIs.API("crm")
	var paths []string
	for p := range doc.Paths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	checked := 0
	for _, p := range paths {
		for method, op := range doc.Paths[p] {
			method = strings.ToUpper(method)
			c := callIndexByMethod(method)
			if c < 0 || !calls[c].HasPayload {
				continue
			}
			var segs []openapi.Seg
			var elems []string
			for _, s := range strings.Split(strings.Trim(p, "/"), "/") {
				if openapi.IsParam(s) {
					segs, elems = append(segs, openapi.Seg{Computed: true}), append(elems, "v")
				} else {
					segs, elems = append(segs, openapi.Seg{Text: s}), append(elems, fmt.Sprintf("%q", s))
				}
			}
			if m, _ := api.Match(method, segs); m == nil || m.Path != p {
				continue // another template matches first: not this operation's call
			}
			for _, ex := range op.RequestBody.Content["application/json"].Examples {
				if len(ex.Value) == 0 || ex.Value[0] != '{' {
					continue
				}
				script := fmt.Sprintf("var v = 'x';\napi.rest.v1.%s(\"crm\", {pathParams: [%s]}, {}, %s);", calls[c].Name, strings.Join(elems, ", "), ex.Value)
				checked++
				for _, d := range Diagnose(NewDocument(script), testRegistry(t), disp) {
					if valueCodes[d.Code] && !githubBadExamples[method+" "+p] {
						t.Errorf("%s %s example: %s: %s", method, p, d.Code, d.Message)
					}
				}
			}
		}
	}
	t.Logf("%d examples checked", checked)
	if checked < 300 {
		t.Errorf("only %d examples checked", checked)
	}
}

func callIndexByMethod(method string) int {
	for i := range calls {
		if calls[i].Method == method {
			return i
		}
	}
	return -1
}
