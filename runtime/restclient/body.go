package restclient

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"strings"
)

// HeaderField is one request header in the order the script wrote it.
type HeaderField struct {
	Name, Value string
}

// checkHeaders validates header names and values: a CR or LF would let a
// script inject headers or a second request.
func checkHeaders(h []HeaderField) error {
	for _, f := range h {
		if !validHeaderName(f.Name) {
			return &ArgError{Param: "HEADER", Msg: fmt.Sprintf("%q is not a valid header name (letters, digits and !#$%%&'*+-.^_`|~ only)", f.Name)}
		}
		if strings.ContainsAny(f.Value, "\r\n") {
			return &ArgError{Param: "HEADER", Msg: fmt.Sprintf("the value of %q contains a CR or LF character, which is not allowed in a header", f.Name)}
		}
		if strings.IndexByte(f.Value, 0) >= 0 {
			return &ArgError{Param: "HEADER", Msg: fmt.Sprintf("the value of %q contains a NUL character, which is not allowed in a header", f.Name)}
		}
	}
	return nil
}

func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isAlnum(c) {
			continue
		}
		switch c {
		case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
			continue
		}
		return false
	}
	return true
}

// IsMultipart reports whether a Content-Type value asks for a multipart
// form (docs/api.md#multipart-forms), whatever parameters the script added.
func IsMultipart(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "multipart/form-data")
}

// MultipartField is one form field of a multipart body.
type MultipartField struct {
	Name, Value string
}

// MultipartFields turns a JSON object into form fields, in the object's key
// order: strings as they are, numbers and booleans as their text, objects
// and arrays as JSON text, null as an empty value.
func MultipartFields(payload json.RawMessage) ([]MultipartField, error) {
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, &ArgError{Param: "PAYLOAD", Msg: "a multipart/form-data payload must be an object whose keys become the form fields"}
	}
	var fields []MultipartField
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("payload: %w", err)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("payload: %w", err)
		}
		fields = append(fields, MultipartField{Name: kt.(string), Value: fieldText(raw)})
	}
	return fields, nil
}

func fieldText(raw json.RawMessage) string {
	switch {
	case len(raw) == 0, string(raw) == "null":
		return ""
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return string(raw)
}

// encodeMultipart writes fields as multipart/form-data with a boundary of
// ours; it returns the body and the Content-Type to send.
func encodeMultipart(fields []MultipartField) ([]byte, string, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	var rnd [12]byte
	_, _ = rand.Read(rnd[:])
	if err := w.SetBoundary("restls-" + hex.EncodeToString(rnd[:])); err != nil {
		return nil, "", err
	}
	for _, f := range fields {
		if err := w.WriteField(f.Name, f.Value); err != nil {
			return nil, "", err
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}
