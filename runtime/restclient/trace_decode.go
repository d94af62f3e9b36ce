package restclient

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// UnmarshalJSON reads the object MarshalJSON writes, keeping its order, so
// a Call that crossed a process boundary (a dry run's child writes its
// result as JSON) marshals again to the same bytes.
func (h *Headers) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		return nil // as encoding/json leaves a slice for null
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("headers: expected an object of strings")
	}
	out := Headers{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fmt.Errorf("headers: %w", err)
		}
		name, _ := t.(string)
		var value string
		if err := dec.Decode(&value); err != nil {
			return fmt.Errorf("headers: the value of %q: %w", name, err)
		}
		out = append(out, HeaderField{Name: name, Value: value})
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("headers: %w", err)
	}
	*h = out
	return nil
}
