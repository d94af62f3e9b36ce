package config

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/unicode"

	"github.com/restls/restls/textpos"
)

// decodeXML returns an XML file's text as UTF-8, as a Java parser reads
// it (XML 1.0, appendix F): a byte order mark says UTF-8 or UTF-16 (LE or
// BE); without one, a file that starts "<?" in UTF-16 is UTF-16; else the
// encoding named in the XML declaration, looked up among the IANA names
// (ISO-8859-1, windows-1252, ...), and UTF-8 when there is none. The whole
// file is decoded once, before the position scan and etree, so both see
// the text an editor shows: lines count the same in any encoding, and
// columns count the UTF-8 bytes of the decoded line, as for every other
// file. The declaration still names the original encoding; etree's
// pass-through CharsetReader and xmlDecoder's leave the decoded text as
// it is.
//
// A file whose declared encoding cannot be decoded gets a diagnostic on
// the declaration, naming the encoding, and ok is false: it is ignored.
func decodeXML(file string, data []byte) (text []byte, d Diagnostic, ok bool) {
	var enc encoding.Encoding
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		// The mark wins over a declaration, as for UTF-16.
		return data[3:], Diagnostic{}, true
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{'<', 0, '?', 0}):
		enc = unicode.UTF16(unicode.LittleEndian, unicode.UseBOM)
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}), bytes.HasPrefix(data, []byte{0, '<', 0, '?'}):
		enc = unicode.UTF16(unicode.BigEndian, unicode.UseBOM)
	}
	if enc != nil {
		// UseBOM takes the mark off, and reads the given order when
		// there is none.
		out, err := enc.NewDecoder().Bytes(data)
		if err != nil {
			return nil, Diagnostic{Position: Position{File: file, Line: 1, RuneCol: 1}, Severity: SeverityError, Code: CodeBadEncoding,
				Message: "the file starts as UTF-16 but cannot be decoded as UTF-16 (" + err.Error() + "); save it as UTF-8 or UTF-16 (the file is ignored)"}, false
		}
		// The declaration may say UTF-16 or anything else: the bytes
		// could only be read as UTF-16, so that is what they are.
		return out, Diagnostic{}, true
	}
	name, at := declaredEncoding(data)
	if name == "" {
		return data, Diagnostic{}, true
	}
	pos := func() Position {
		p := textpos.NewFile(string(data[:at])).RunePos(textpos.ByteOffset(at))
		return Position{File: file, Line: p.Line, RuneCol: p.Col}
	}
	switch strings.ToLower(name) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return data, Diagnostic{}, true // read as they are: invalid UTF-8 is a syntax error
	case "utf-16", "utf-16le", "utf-16be":
		return nil, Diagnostic{Position: pos(), Severity: SeverityError, Code: CodeBadEncoding,
			Message: fmt.Sprintf("the XML declaration names encoding %q, but the file is not UTF-16 (no byte order mark; its first characters are one byte each): fix the declaration (UTF-8, ISO-8859-1, windows-1252) or save the file as UTF-16 with a byte order mark (the file is ignored)", name)}, false
	}
	enc, err := ianaindex.IANA.Encoding(name)
	if err != nil || enc == nil {
		why := "which restls does not know"
		if err == nil {
			why = "which restls cannot decode"
		}
		return nil, Diagnostic{Position: pos(), Severity: SeverityError, Code: CodeBadEncoding,
			Message: fmt.Sprintf("the XML declaration names encoding %q, %s: fix the name (UTF-8, UTF-16, ISO-8859-1, windows-1252, ... as the platform reads them) or save the file as UTF-8 (the file is ignored)", name, why)}, false
	}
	if asciiOnly(data) {
		return data, Diagnostic{}, true // the same text in every encoding a declaration can be read in
	}
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil || !utf8.Valid(out) {
		return nil, Diagnostic{Position: pos(), Severity: SeverityError, Code: CodeBadEncoding,
			Message: fmt.Sprintf("the file cannot be decoded as %q, the encoding its XML declaration names: fix the declaration or save the file as UTF-8 (the file is ignored)", name)}, false
	}
	return out, Diagnostic{}, true
}

// xmlDecl matches the encoding in an XML declaration.
var xmlDecl = regexp.MustCompile(`^<\?xml[ \t\r\n][^>]*?\bencoding[ \t\r\n]*=[ \t\r\n]*(?:"([^"]*)"|'([^']*)')`)

// declaredEncoding returns the encoding an XML declaration at the start
// of data names, and its offset; "" when there is none.
func declaredEncoding(data []byte) (string, int) {
	head := data[:min(len(data), 1024)] // a declaration is short
	m := xmlDecl.FindSubmatchIndex(head)
	if m == nil {
		return "", 0
	}
	if m[2] >= 0 {
		return string(head[m[2]:m[3]]), m[2]
	}
	return string(head[m[4]:m[5]]), m[4]
}

// asciiOnly reports whether data holds only 7-bit bytes.
func asciiOnly(data []byte) bool {
	for _, c := range data {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// ReadText reads a configuration file as ReadFile does and returns its
// text as restls reads it: an XML file (.xml) decoded to UTF-8 from the
// encoding its byte order mark or declaration gives, so that a
// diagnostic's line and column find the same place in it. A file that
// cannot be decoded is returned as it is.
func ReadText(path string) ([]byte, error) {
	data, err := ReadFile(path)
	if err != nil || !strings.EqualFold(filepath.Ext(path), ".xml") {
		return data, err
	}
	if text, _, ok := decodeXML(path, data); ok {
		return text, nil
	}
	return data, nil
}
