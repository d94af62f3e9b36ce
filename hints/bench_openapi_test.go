package hints

import (
	"os"
	"strings"
	"testing"

	"github.com/restls/restls/internal/openapitest"
	"github.com/restls/restls/openapi"
)

// githubDisplay attaches GitHub's description (1,223 operations) to
// serviceId crm.
func githubDisplay(b *testing.B) Display {
	b.Helper()
	data, err := os.ReadFile(openapitest.GitHub(b))
	if err != nil {
		b.Fatal(err)
	}
	idx, err := openapi.Build("api.github.com.json", data)
	if err != nil {
		b.Fatal(err)
	}
	return Display{APIs: openapi.Attach(testRegistry(b), []openapi.Doc{{ServiceID: "crm", Index: idx}})}
}

// githubCalls is a script of 200 calls to GitHub's operations with
// literal segments, query values and payloads.
func githubCalls() string {
	var b strings.Builder
	for range 50 {
		b.WriteString(`api.rest.v1.get("crm", {pathParams: ["repos", "o", "r", "issues"], queryParams: {state: "open", per_page: "50", sort: "created"}}, {});` + "\n")
		b.WriteString(`api.rest.v1.post("crm", {pathParams: ["repos", "o", "r", "issues"]}, {}, {title: "t", body: "b", labels: ["bug"], assignees: [who]});` + "\n")
		b.WriteString(`api.rest.v1.get("crm", {pathParams: ["repos", "o", "r", "pulls", "12"]}, {});` + "\n")
		b.WriteString(`api.rest.v1.patch("crm", {pathParams: ["repos", "o", "r"]}, {}, {name: "x", private: true, visibility: "private", security_and_analysis: {advanced_security: {status: "enabled"}}});` + "\n")
	}
	return b.String()
}

// BenchmarkDiagnoseOpenAPI diagnoses 200 calls against GitHub's
// description, as after a keystroke (a new Document each time).
//
//	go test -run '^$' -bench 'DiagnoseOpenAPI|CompleteOpenAPI' -benchmem ./hints/
func BenchmarkDiagnoseOpenAPI(b *testing.B) {
	disp := githubDisplay(b)
	reg := testRegistry(b)
	text := githubCalls()
	Diagnose(NewDocument(text), reg, disp) // compile the schemas once, as the first diagnosis does
	b.ReportAllocs()
	for b.Loop() {
		Diagnose(NewDocument(text), reg, disp)
	}
}

// BenchmarkCompleteOpenAPI completes path segments and query values of
// GitHub's operations.
func BenchmarkCompleteOpenAPI(b *testing.B) {
	disp := githubDisplay(b)
	reg := testRegistry(b)
	for _, bc := range []struct{ name, src string }{
		{"pathParams", `api.rest.v1.get("crm", {pathParams: ["repos", o, r, |]}, {});`},
		{"queryValue", `api.rest.v1.get("crm", {pathParams: ["repos", o, r, "issues"], queryParams: {state: "|"}}, {});`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			text, off := cursor(b, bc.src)
			b.ReportAllocs()
			for b.Loop() {
				if c := AppendCompletion(nil, NewDocument(text), off, reg, CompleteOptions{Display: disp}); len(c.Items) == 0 {
					b.Fatal("no items")
				}
			}
		})
	}
}
