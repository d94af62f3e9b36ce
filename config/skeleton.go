package config

import (
	"bytes"
	"encoding/xml"
	"strings"
)

// SkeletonURL is the url of a skeleton entry: a host under the reserved
// .invalid domain, so that a skeleton left as it is never reaches a real
// machine.
const SkeletonURL = "https://CHANGE-ME.invalid/"

// KindXML returns the XML file that scripts of kind k read after the
// properties (script-service-api.xml, or script-handler-api.xml for
// scriptTask): the one named, else the one under the config root; "" when
// the sources name neither (a remote registry, properties files only).
func (s Sources) KindXML(k Kind) string {
	if s.RegistryURL != "" {
		return ""
	}
	r := s.resolve()
	if k.UsesHandlerXML() {
		return r.handlerXML.path
	}
	return r.serviceXML.path
}

// SkeletonXMLEntry returns the insertion that adds an api entry for
// serviceId id to a service XML file's text: at offset, insert text. A
// file that does not exist (exists false) gets the whole document. ok is
// false when the text has no closing </scriptservice> to insert before
// (an empty root element, a broken file), or id would not read back (empty,
// or with spaces around it): the user edits it by hand.
func SkeletonXMLEntry(text string, exists bool, id string) (offset int, insert string, ok bool) {
	if id == "" || strings.TrimSpace(id) != id {
		return 0, "", false // the reader trims values: the entry would not read back as id
	}
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(id)) // quotes too: the value is an attribute
	attr := b.String()
	entry := `<api serviceId="` + attr + `" url="` + SkeletonURL + `"/>`
	if !exists {
		return 0, "<scriptservice>\n  " + entry + "\n</scriptservice>\n", true
	}
	end := strings.LastIndex(text, "</scriptservice>")
	if end < 0 {
		return 0, "", false
	}
	indent := "  "
	if i := strings.LastIndex(text[:end], "<api"); i >= 0 {
		ls := strings.LastIndexByte(text[:i], '\n') + 1
		if ws := text[ls:i]; strings.TrimLeft(ws, " \t") == "" {
			indent = ws
		}
	}
	ls := strings.LastIndexByte(text[:end], '\n') + 1
	if strings.TrimLeft(text[ls:end], " \t") == "" {
		// </scriptservice> begins its line: the entry goes on a line of
		// its own before it.
		return ls, indent + entry + "\n", true
	}
	return end, "\n" + indent + entry + "\n", true
}
