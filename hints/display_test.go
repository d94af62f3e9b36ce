package hints

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDisplayPath: every text that names a configuration file names it as
// Display.Path says (the HTTP backend shows web clients paths relative to
// the configuration root): hover, completion documentation, both ways of
// building it, and the unusable-service diagnostic.
func TestDisplayPath(t *testing.T) {
	reg := testRegistry(t)
	disp := Display{Path: func(p string) string { return "shown/" + filepath.Base(p) }}
	texts := map[string]string{}

	text, off := cursor(t, `api.rest.v1.get("cr|m")`)
	h, ok := HoverAt(NewDocument(text), off, reg, disp)
	if !ok {
		t.Fatal("no hover on a serviceId")
	}
	texts["hover"] = h.Markdown
	text, off = cursor(t, `api.rest.v1.get("bro|ken")`)
	h, _ = HoverAt(NewDocument(text), off, reg, disp)
	texts["hover unusable"] = h.Markdown

	text, off = cursor(t, `api.rest.v1.get("cr|`)
	for _, it := range AppendCompletion(nil, NewDocument(text), off, reg, CompleteOptions{Display: disp}).Items {
		if it.Label == "crm" {
			texts["completion"] = it.Documentation
		}
	}
	texts["resolve"] = ServiceDoc(reg, "crm", disp)
	for _, d := range Diagnose(NewDocument(`api.rest.v1.get("broken", {}, {})`), reg, disp) {
		if d.Code == CodeUnusableService {
			texts["diagnostic"] = d.Message
		}
	}
	for what, s := range texts {
		if !strings.Contains(s, "shown/script-service-api.xml:") || strings.Contains(s, "testdata/") {
			t.Errorf("%s names the file as it is, not as Display.Path shows it:\n%s", what, s)
		}
	}
	if len(texts) != 5 {
		t.Errorf("got %d texts, want 5: %v", len(texts), texts)
	}
	// Without a Display the path is the registry's.
	if doc := ServiceDoc(reg, "crm", Display{}); !strings.Contains(doc, "testdata/script-service-api.xml:") {
		t.Errorf("ServiceDoc without a Display:\n%s", doc)
	}
}
