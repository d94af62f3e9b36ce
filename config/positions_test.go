package config

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// TestPositionsCountCharacters: a configuration position's column counts
// characters in every format, as YAML reports it and restls check prints
// it, and a byte order mark takes none. XML columns counted bytes (the
// second api: 85 for 81 characters); the locator read YAML's character
// columns as bytes (the flow entry's id was not found: it searched from 4
// bytes before its key) and counted the mark of an XML file its reader
// had dropped (the id of "c" was not found, so neither references nor
// rename reached it).
func TestPositionsCountCharacters(t *testing.T) {
	second := `<scriptservice><api description="é😀" serviceId="a" url="https://a.example.com"/>`
	files := memFiles{
		"root/" + yml: "scriptservice:\n  api:\n    - {url: \"https://x.example.com/é😀:\", serviceId: flow}\n",
		"root/" + svc: second + `<api serviceId="b" url="https://b.example.com"/></scriptservice>` + "\n",
		"root/" + hdl: "\ufeff" + `<scriptservice><api serviceId="c" url="https://c.example.com"/></scriptservice>`,
	}
	snap := LoadWith(Sources{ConfigRoot: "root"}, files.read)
	var got []string
	for _, e := range snap.Entries() {
		got = append(got, fmt.Sprintf("%s %s %d:%d id=%s", strings.TrimPrefix(e.Defined.File, "root/"), e.ID, e.Defined.Line, e.Defined.RuneCol, spanText(files, e, e.IDSpan)))
	}
	want := []string{
		fmt.Sprintf("%s flow 3:7 id=flow", yml),
		fmt.Sprintf("%s a 1:16 id=a", svc),
		fmt.Sprintf("%s b 1:%d id=b", svc, utf8.RuneCountInString(second)+1),
		fmt.Sprintf("%s c 1:16 id=c", hdl),
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}
}

// TestXMLSyntaxErrorCountsCharacters: the position of an XML syntax error
// (the character before where the decoder stopped, the blank before the
// '<' here) counts characters: it counted bytes, 14 on this line.
func TestXMLSyntaxErrorCountsCharacters(t *testing.T) {
	d := syntaxError("f.xml", []byte("<scriptservice>\n<a d=\"é😀\" <"))
	if d.Line != 2 || d.RuneCol != 10 {
		t.Errorf("syntax error at %d:%d, want 2:10 (the blank before '<'): %s", d.Line, d.RuneCol, d)
	}
}
