package scripttest

import (
	"bytes"
	"encoding/json"
	"fmt"

	yaml "go.yaml.in/yaml/v4"

	"github.com/restls/restls/input"
)

// update rewrites the parts of c's expectations that failed, or that it
// lacks, with the actual outcome: the result (or the error), the calls,
// and the logs when c checks them. A passing part stays as written.
func update(c *Case, o *Outcome) {
	e, res := c.Expect, o.RunResult
	if res == nil {
		return
	}
	// The changes are made to the case's node (a full rewrite writes
	// them) and recorded for the file's edit in place (inplace.go).
	edit := &mapEdit{line: c.node.Line, column: c.node.Column}
	defer func() {
		edit.apply(c.node)
		c.file.edits = append(c.file.edits, *edit)
	}()
	if o.failed.result || !e.HasResult && !e.HasMatch && e.Error == nil {
		edit.del("result")
		edit.del("resultMatch")
		edit.del("error")
		if res.Error != nil {
			ee := ExpectError{Code: res.Error.Code, Name: res.Error.Name}
			if res.Error.Status != nil {
				ee.Status = res.Error.Status.Code
			}
			if ee.Code != "" || ee.Status != 0 {
				ee.Name = ""
			}
			edit.set("error", nodeOf(ee))
		} else {
			edit.set("result", jsonNode(res.Result))
		}
	}
	if o.failed.calls || !e.HasCalls {
		calls := make([]map[string]any, 0, len(res.Calls))
		for _, call := range res.Calls {
			m := map[string]any{"method": call.Method, "serviceId": call.ServiceID, "url": call.URL}
			calls = append(calls, m)
		}
		seq := nodeOf(calls)
		for i, call := range res.Calls {
			// Keys in the order a reader scans a call.
			item := &yaml.Node{Kind: yaml.MappingNode}
			setKey(item, "method", nodeOf(call.Method))
			setKey(item, "serviceId", nodeOf(call.ServiceID))
			setKey(item, "url", nodeOf(call.URL))
			if len(call.RequestBody) > 0 {
				setKey(item, "body", jsonNode(call.RequestBody))
			}
			seq.Content[i] = item
		}
		edit.set("calls", seq)
	}
	if o.failed.logs {
		logs := &yaml.Node{Kind: yaml.SequenceNode}
		for _, l := range res.Logs {
			item := &yaml.Node{Kind: yaml.MappingNode}
			setKey(item, "level", nodeOf(l.Level))
			setKey(item, "message", nodeOf(l.Message))
			logs.Content = append(logs.Content, item)
		}
		edit.set("logs", logs)
	}
}

// save writes the file with its updated expectations: edited in place
// where it can be (inplace.go), so the rest of the file stays as
// written; else, or when the edit would not read back as the full
// rewrite does, rewritten whole. A write func, when given, receives the
// text in place of the file.
func (f *File) save(write func(path string, data []byte) error) error {
	var b bytes.Buffer
	if err := encodeYAML(&b, f.doc); err != nil {
		return fmt.Errorf("write %s: %w", f.Path, err)
	}
	out := b.Bytes()
	if edited, ok := editInPlace(f.data, f.edits); ok && sameValue(edited, out) {
		out = edited
	}
	if limit := input.TestFile.Limit(); int64(len(out)) > limit {
		// restls test would refuse to read it back.
		return fmt.Errorf("write %s: the updated file would be %d bytes, past the %d-byte limit for %s; update fewer cases at a time (restls test --update --run NAME), or check the part of a large result that matters with resultMatch", f.Path, len(out), limit, input.TestFile)
	}
	if write != nil {
		if err := write(f.Path, out); err != nil {
			return err
		}
		f.data = out
		return nil
	}
	// A test file that is a link out of its repository is not written
	// through: the repository would choose what an outside file holds.
	// The new text replaces the file whole: a write that fails (a full
	// disk, a quota, a file size limit) leaves it as it was.
	if err := input.WriteFileIn(f.root, f.Path, out); err != nil {
		return fmt.Errorf("write %s: %w; the file is left as it was", f.Path, err)
	}
	f.data = out
	return nil
}

// caseLine is the line of the case named name in the file as last
// written, 0 when not found.
func (f *File) caseLine(name string) int {
	doc, err := input.YAMLNode(f.data)
	if err != nil || len(doc.Content) != 1 {
		return 0
	}
	if seq := valueOf(doc.Content[0], "cases"); seq != nil {
		for _, c := range seq.Content {
			if n := valueOf(c, "name"); n != nil && n.Value == name {
				return c.Line
			}
		}
	}
	return 0
}

func nodeOf(v any) *yaml.Node {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
	return &n
}

// jsonNode is a JSON value as a block-style YAML node, keys in the order
// the JSON has them; an empty value is null.
func jsonNode(raw json.RawMessage) *yaml.Node {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("null")
	}
	doc, err := input.YAMLNode(raw)
	if err != nil || len(doc.Content) != 1 {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: string(raw)}
	}
	n := doc.Content[0]
	blockStyle(n)
	return n
}

// blockStyle clears the flow and quoting styles JSON gave the nodes, so
// they are written as YAML users write it; empty collections stay flow.
func blockStyle(n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode, yaml.SequenceNode:
		if len(n.Content) > 0 {
			n.Style = 0
		}
		for _, c := range n.Content {
			blockStyle(c)
		}
	case yaml.ScalarNode:
		n.Style = 0
	}
}

func setKey(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
}

func deleteKey(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}
