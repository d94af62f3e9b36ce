package scripttest

import (
	"bytes"
	"reflect"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/restls/restls/input"
)

// keyOp is one change --update makes to a mapping of a test file: set
// key to value (nil value: delete the key).
type keyOp struct {
	key   string
	value *yaml.Node
}

// mapEdit is what --update does to one mapping (a case) of a test file:
// the mapping's position in the file as read, and the changes in order.
type mapEdit struct {
	line, column int
	ops          []keyOp
}

func (e *mapEdit) del(key string)                   { e.ops = append(e.ops, keyOp{key: key}) }
func (e *mapEdit) set(key string, value *yaml.Node) { e.ops = append(e.ops, keyOp{key, value}) }

// apply makes the changes to m, as a full rewrite writes them: a key
// set again is replaced where it is, a new key goes last, a deleted key
// is removed.
func (e *mapEdit) apply(m *yaml.Node) {
	for _, op := range e.ops {
		if op.value == nil {
			deleteKey(m, op.key)
		} else {
			setKey(m, op.key, op.value)
		}
	}
}

// final is the net effect of the changes: the keys deleted, and the keys
// set with their last value in the order first set.
func (e *mapEdit) final() (deleted map[string]bool, set []keyOp) {
	deleted = map[string]bool{}
	at := map[string]int{}
	for _, op := range e.ops {
		if op.value == nil {
			deleted[op.key] = true
			if i, ok := at[op.key]; ok {
				set = slices.Delete(set, i, i+1)
				delete(at, op.key)
				for k, j := range at {
					if j > i {
						at[k] = j - 1
					}
				}
			}
			continue
		}
		delete(deleted, op.key)
		if i, ok := at[op.key]; ok {
			set[i].value = op.value
			continue
		}
		at[op.key] = len(set)
		set = append(set, op)
	}
	return deleted, set
}

// textEdit replaces data[start:end] with text.
type textEdit struct {
	start, end int
	text       string
}

// editInPlace applies edits to data, the test file as read, by byte
// range: only the entries --update changes are rewritten, so blank
// lines, comments and the spacing of flow mappings elsewhere stay as
// written. It declines (false) what it cannot edit by lines: a mapping
// in flow style, a key that shares its line with another node, a removed
// value that holds an anchor, a carriage return that does not end a line
// (CRLF files are edited as LF and written back as CRLF), a second
// document, a block scalar (| or >) anywhere in the file, a new text of
// several lines followed by a blank line or the end of a file without a
// final line break (a block scalar's chomping would take them in). The
// result must decode to what a full rewrite would; save checks that too.
func editInPlace(data []byte, edits []mapEdit) ([]byte, bool) {
	if len(edits) == 0 {
		return data, true
	}
	if bytes.IndexByte(data, '\r') >= 0 {
		// CRLF throughout: edited as LF, written back as CRLF. Any
		// other carriage return is left to the full rewrite.
		lf := bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
		if bytes.IndexByte(lf, '\r') >= 0 {
			return nil, false
		}
		out, ok := editInPlace(lf, edits)
		if !ok {
			return nil, false
		}
		return bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n")), true
	}
	doc, err := input.YAMLNode(data)
	if err != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, false
	}
	t := newLineText(data)
	order := preorder(doc.Content[0])
	if t.secondDocument(order[0].Line) {
		return nil, false
	}
	// A block scalar (| or >) takes the blank lines after it, and the line
	// break at its end, as its text, or not, by its chomping: an edit
	// next to one can change it. Rare in test files; left to the full
	// rewrite.
	for _, n := range order {
		if isBlockScalar(n) {
			return nil, false
		}
	}
	var out []textEdit
	var spans [][2]int // each edited mapping's subtree, in preorder indices
	for i := range edits {
		e := &edits[i]
		idx := slices.IndexFunc(order, func(n *yaml.Node) bool {
			return n.Kind == yaml.MappingNode && n.Line == e.line && n.Column == e.column
		})
		if idx < 0 {
			return nil, false
		}
		m := order[idx]
		// A mapping edited inside another edited mapping: the outer edit
		// may replace the entry that holds it, and the two texts would
		// meet (at the end of a file without a final newline they touch
		// without overlapping). The full rewrite applies both.
		end := idx + subtreeSize(m)
		for _, sp := range spans {
			if idx < sp[1] && sp[0] < end {
				return nil, false
			}
		}
		spans = append(spans, [2]int{idx, end})
		var next *yaml.Node
		if j := idx + subtreeSize(m); j < len(order) {
			next = order[j]
		}
		te, ok := t.editMapping(m, next, e)
		if !ok {
			return nil, false
		}
		out = append(out, te...)
	}
	slices.SortStableFunc(out, func(a, b textEdit) int { return a.start - b.start })
	var b bytes.Buffer
	pos := 0
	for _, te := range out {
		if te.start < pos {
			return nil, false // overlapping edits
		}
		b.Write(data[pos:te.start])
		b.WriteString(te.text)
		pos = te.end
	}
	b.Write(data[pos:])
	return b.Bytes(), true
}

// editMapping turns the edit of block mapping m into text edits; next is
// the node that follows m's subtree in the document, if any.
func (t *lineText) editMapping(m, next *yaml.Node, e *mapEdit) ([]textEdit, bool) {
	if m.Style&yaml.FlowStyle != 0 || len(m.Content) < 2 {
		return nil, false
	}
	indent := m.Column - 1
	n := len(m.Content) / 2
	// Where each entry starts and ends; an entry ends where the next
	// starts, less the blank lines and the comments (at the mapping's
	// indentation or less) that lead to what follows.
	starts, ends := make([]int, n), make([]int, n)
	for i := range n {
		k := m.Content[2*i]
		// A key that is no plain string (an empty key reads as null, a
		// tag or a number as itself) is the full rewrite's to write: it
		// writes every key as a string, and the two must agree.
		if k.Kind != yaml.ScalarNode || k.Value == "" || k.ShortTag() != "!!str" || k.Column != m.Column || (i > 0 && k.Line <= m.Content[2*i-1].Line) {
			return nil, false
		}
		s, ok := t.keyStart(k)
		if !ok {
			return nil, false
		}
		starts[i] = s
	}
	for i := range n {
		var end int
		switch {
		case i+1 < n:
			end = t.lineStart(m.Content[2*i+2].Line)
		case next != nil:
			end = t.lineStart(next.Line)
			if next.Line <= lastLine(m) {
				return nil, false
			}
		default:
			end = len(t.data)
		}
		ends[i] = t.backOff(end, t.lineStart(m.Content[2*i].Line+1), indent)
	}
	deleted, set := e.final()
	if len(set) == 0 {
		// Every key deleted: an empty block mapping has no text of its
		// own (the file would read as null, not {}); the full rewrite
		// writes {}.
		kept := 0
		for i := range n {
			if !deleted[m.Content[2*i].Value] {
				kept++
			}
		}
		if kept == 0 {
			return nil, false
		}
	}
	var out []textEdit
	lastEdit := -1 // the edit of the last entry, if any
	for i := range n {
		if i == n-1 {
			lastEdit = len(out)
		}
		k, v := m.Content[2*i], m.Content[2*i+1]
		j := slices.IndexFunc(set, func(op keyOp) bool { return op.key == k.Value })
		if !deleted[k.Value] && j < 0 {
			continue
		}
		if hasAnchor(v) || hasAnchor(k) {
			return nil, false
		}
		if j < 0 {
			// Deleted: the whole lines, unless the key follows "- ".
			if starts[i] != t.lineStart(k.Line) {
				return nil, false
			}
			out = append(out, textEdit{starts[i], ends[i], ""})
			continue
		}
		text, ok := entryText(k.Value, set[j].value, indent)
		if !ok || t.absorbs(set[j].value, ends[i]) {
			return nil, false
		}
		if starts[i] != t.lineStart(k.Line) {
			// After "- ": the first line goes where the key was.
			text = text[indent:]
		}
		out = append(out, textEdit{starts[i], ends[i], text})
		set = slices.Delete(set, j, j+1)
	}
	if lastEdit == len(out) {
		lastEdit = -1 // the last entry stays as it is
	}
	// Keys new to the mapping go after its last entry: with the last
	// entry's own edit when it has one (a deleted last entry's place).
	if len(set) > 0 {
		at := ends[n-1]
		var b strings.Builder
		if lastEdit < 0 && at > 0 && t.data[at-1] != '\n' {
			b.WriteByte('\n')
		}
		for _, op := range set {
			text, ok := entryText(op.key, op.value, indent)
			if !ok || t.absorbs(op.value, at) {
				return nil, false
			}
			b.WriteString(text)
		}
		if lastEdit >= 0 {
			out[lastEdit].text += b.String()
		} else {
			out = append(out, textEdit{at, at, b.String()})
		}
	}
	return out, true
}

// entryText is "key: value" as block YAML at indentation indent (spaces),
// ending with a line break.
func entryText(key string, v *yaml.Node, indent int) (string, bool) {
	var kb bytes.Buffer
	if err := encodeYAML(&kb, &yaml.Node{Kind: yaml.ScalarNode, Value: key}); err != nil {
		return "", false
	}
	var vb bytes.Buffer
	if err := encodeYAML(&vb, v); err != nil {
		return "", false
	}
	keyText := strings.TrimSuffix(kb.String(), "\n")
	if strings.Contains(keyText, "\n") {
		return "", false
	}
	lines := strings.Split(strings.TrimSuffix(vb.String(), "\n"), "\n")
	pad := strings.Repeat(" ", indent)
	var b strings.Builder
	b.WriteString(pad + keyText + ":")
	rest := lines
	block := (v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode) && v.Style&yaml.FlowStyle == 0 && len(v.Content) > 0
	if !block {
		if (strings.HasPrefix(lines[0], "|") || strings.HasPrefix(lines[0], ">")) && strings.ContainsAny(lines[0], "123456789") {
			// An indentation indicator counts from the parent's
			// indentation, which moves here.
			return "", false
		}
		b.WriteString(" " + lines[0])
		rest = lines[1:]
	}
	b.WriteByte('\n')
	for _, l := range rest {
		if l != "" {
			b.WriteString(pad + "  " + l)
		}
		b.WriteByte('\n')
	}
	return b.String(), true
}

// encodeYAML writes one node as a YAML document, indented by two, with
// no line width: at yaml/v4's default of 80 columns a flow list breaks
// its lines and indents each by its depth, so a list nested 10,000 deep
// (20 KB as written) came out as 100 MB.
func encodeYAML(b *bytes.Buffer, n *yaml.Node) error {
	d, err := yaml.NewDumper(b, yaml.WithV3Defaults(), yaml.WithIndent(2), yaml.WithLineWidth(-1))
	if err != nil {
		return err
	}
	if err := d.Dump(n); err != nil {
		return err
	}
	return d.Close()
}

// sameValue reports whether two YAML texts decode to the same value (a
// NaN makes them differ: the full rewrite is then written).
func sameValue(a, b []byte) bool {
	va, ok1 := decodeValue(a)
	vb, ok2 := decodeValue(b)
	return ok1 && ok2 && reflect.DeepEqual(va, vb)
}

func decodeValue(data []byte) (any, bool) {
	doc, err := input.YAMLNode(data)
	if err != nil {
		return nil, false
	}
	var v any
	if doc.Kind != 0 {
		if err := input.DecodeYAMLValue(doc, &v); err != nil {
			return nil, false
		}
	}
	return v, true
}

// preorder lists n and every node under it in document order (aliases
// are not followed).
func preorder(n *yaml.Node) []*yaml.Node {
	var out []*yaml.Node
	stack := []*yaml.Node{n}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, x)
		for i := len(x.Content) - 1; i >= 0; i-- {
			stack = append(stack, x.Content[i])
		}
	}
	return out
}

func subtreeSize(n *yaml.Node) int {
	size := 1
	for _, c := range n.Content {
		size += subtreeSize(c)
	}
	return size
}

// lastLine is the line of the last node in n's subtree.
func lastLine(n *yaml.Node) int {
	for len(n.Content) > 0 {
		n = n.Content[len(n.Content)-1]
	}
	return n.Line
}

func hasAnchor(n *yaml.Node) bool {
	if n.Anchor != "" {
		return true
	}
	for _, c := range n.Content {
		if hasAnchor(c) {
			return true
		}
	}
	return false
}

// lineText is a text with its line starts.
type lineText struct {
	data   []byte
	starts []int // starts[i] is where line i+1 starts
}

func newLineText(data []byte) *lineText {
	t := &lineText{data: data, starts: []int{0}}
	for i, c := range data {
		if c == '\n' {
			t.starts = append(t.starts, i+1)
		}
	}
	return t
}

// lineStart is where 1-based line l starts (the end of the text past
// the last line).
func (t *lineText) lineStart(l int) int {
	if l-1 < len(t.starts) && l >= 1 {
		return t.starts[l-1]
	}
	return len(t.data)
}

func (t *lineText) line(l int) []byte {
	s, e := t.lineStart(l), t.lineStart(l+1)
	return bytes.TrimSuffix(t.data[s:e], []byte("\n"))
}

// keyStart is the byte offset where key k's entry starts: the start of
// its line when only spaces come before it, the key itself when it
// follows a sequence item's "- " (spaces and dashes only).
func (t *lineText) keyStart(k *yaml.Node) (int, bool) {
	line := t.line(k.Line)
	col := k.Column - 1
	if col > len(line) {
		return 0, false
	}
	prefix := line[:col]
	if len(bytes.Trim(prefix, " ")) == 0 {
		return t.lineStart(k.Line), true
	}
	if len(bytes.Trim(prefix, " -")) != 0 || !bytes.HasSuffix(prefix, []byte(" ")) {
		return 0, false
	}
	return t.lineStart(k.Line) + col, true
}

// backOff moves end back over the blank lines and the comment lines
// indented at most indent that come right before it, but not before min.
func (t *lineText) backOff(end, min, indent int) int {
	for end > min {
		prev := bytes.LastIndexByte(t.data[:end-1], '\n') + 1
		if prev < min {
			break
		}
		l := bytes.TrimSuffix(t.data[prev:end], []byte("\n"))
		trimmed := bytes.TrimLeft(l, " ")
		switch {
		case len(bytes.TrimSpace(l)) == 0:
		case trimmed[0] == '#' && len(l)-len(trimmed) <= indent:
		default:
			return end
		}
		end = prev
	}
	return end
}

func isBlockScalar(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0
}

// absorbs reports whether new value v, written up to end, might take
// what follows end into its text: v holds a text of several lines (the
// encoder writes it as a block scalar) and a blank line follows, or the
// file ends there without a line break.
func (t *lineText) absorbs(v *yaml.Node, end int) bool {
	multiline := false
	for _, n := range preorder(v) {
		if isBlockScalar(n) || n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "\n") {
			multiline = true
			break
		}
	}
	if !multiline {
		return false
	}
	if end >= len(t.data) {
		return len(t.data) > 0 && t.data[len(t.data)-1] != '\n'
	}
	line := t.data[end:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	return len(bytes.TrimSpace(line)) == 0
}

// secondDocument reports a document marker (--- or ...) after line
// first, where a second document would start: YAMLNode reads the first.
func (t *lineText) secondDocument(first int) bool {
	for l := first + 1; l <= len(t.starts); l++ {
		line := t.line(l)
		if bytes.HasPrefix(line, []byte("---")) || bytes.HasPrefix(line, []byte("...")) {
			return true
		}
	}
	return false
}
