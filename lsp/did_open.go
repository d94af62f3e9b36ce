package lsp

import (
	"context"
	"errors"
	"fmt"
	"unsafe"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
)

func (s *session) didOpen(ctx context.Context, _ *jsonrpc2.Request, p *openedDocument) (any, error) {
	d := p.d
	s.mu.Lock()
	why := s.admitLocked(d.uri, int64(len(d.doc.Text())))
	if why == "" {
		s.setDocumentLocked(d)
	}
	s.mu.Unlock()
	if why != "" {
		s.refuseDocument(ctx, d.uri, why)
		return nil, nil
	}
	s.markDirty(d.uri)
	return nil, nil
}

// openedDocument is didOpen's params, decoded by decodeDidOpen into the
// document they open.
type openedDocument struct{ d *document }

func (o *openedDocument) decodeRaw(raw []byte) (err error) {
	o.d, err = decodeDidOpen(raw)
	return err
}

// didOpenParams is protocol.DidOpenTextDocumentParams as decodeDidOpen
// reads it.
type didOpenParams struct {
	TextDocument *struct {
		URI     *string    `json:"uri"`
		Version int32      `json:"version"`
		Text    scriptText `json:"text"`
	} `json:"textDocument"`
}

// scriptText is a JSON string decoded into a buffer of exactly its size,
// which then becomes the string. A script's text is the largest thing a
// client sends, and a server that has just started must fault in all the
// memory it takes while the first registry load runs: a buffer that grows
// by doubling and is then copied into a string would take several times
// the text's size.
type scriptText string

func (t *scriptText) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	switch raw.Kind() {
	case 'n':
		*t = ""
		return nil
	case '"':
	default:
		return fmt.Errorf("text must be a string, not %s", raw.Kind())
	}
	// The decoder has checked the string; the only error left is invalid
	// UTF-8, which the wire options accept and which AppendUnquote has
	// already replaced with U+FFFD, as protocol's decoder does.
	buf, _ := jsontext.AppendUnquote(make([]byte, 0, len(raw)), raw)
	// buf is never written again: the string may own it.
	*t = scriptText(unsafe.String(unsafe.SliceData(buf), len(buf)))
	return nil
}

// didOpenOptions are protocol's wire options: a repeated member is last
// wins, invalid UTF-8 becomes U+FFFD.
var didOpenOptions = json.JoinOptions(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

// decodeDidOpen decodes didOpen's params into a document: the fields
// protocol's decoder reads, with the same options, in one pass, and the text
// it returns is already the document's own copy. It exists because
// protocol's decoder unescapes a string into a small buffer that grows as
// it goes and clones the message first, which for a script costs many
// times the text's size; see "didOpen is decoded by restls" in
// docs/decisions.md and BenchmarkDecodeDidOpen for the comparison.
func decodeDidOpen(raw []byte) (*document, error) {
	var p didOpenParams
	if err := json.Unmarshal(raw, &p, didOpenOptions); err != nil {
		return nil, err
	}
	// protocol stores URIs in vscode-uri's canonical form; so must this,
	// or later requests would not find the document.
	td := p.TextDocument
	if td == nil || td.URI == nil {
		return nil, errors.New("textDocument.uri is missing")
	}
	u, err := uri.Parse(*td.URI)
	if err != nil {
		return nil, err
	}
	return makeDocument(u, td.Version, string(td.Text)), nil
}
