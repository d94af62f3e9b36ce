package input

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"

	yaml "go.yaml.in/yaml/v4"
	"go.yaml.in/yaml/v4/plugin/loaderlimits"
)

// The YAML budget. yaml/v4 composes aliases as pointers to their anchor,
// so parsing a document into a *yaml.Node costs what the document holds;
// the cost comes when something expands the aliases: decoding into Go
// values (yaml/v4's own alias ratio lets a document of under 400,000
// values expand about a hundredfold, and anything of under 1,000
// values), and, unbounded, every walker of a *yaml.Node that follows
// alias nodes (a fixture body turned into JSON, an API description
// turned into a tree). The budget bounds the expansion itself, measured
// on the node tree before anything walks it, so every decode and every
// walker downstream is bounded by it. docs/decisions.md says why these
// figures.
const (
	// YAMLExpansion is how many times its own values a document may hold
	// once its aliases are expanded, beyond YAMLExpansionFloor: a merge
	// key or a shared fixture body repeated a few times fits; a "billion
	// laughs" document, whose every level doubles the one below, does not.
	YAMLExpansion = 10
	// YAMLExpansionFloor is the expansion every document may have whatever
	// its size, so that a short file may reuse an anchor freely: 10,000
	// values (about a megabyte of Go values at the most).
	YAMLExpansionFloor = 10_000
	// YAMLTextFloor is the same floor for the text of expanded scalars: a
	// long string repeated by aliases costs its length each time.
	YAMLTextFloor = 1 << 20
	// MaxYAMLDepth bounds the nesting of mappings and sequences, aliases
	// expanded: yaml/v4's own limit for the document as written, and
	// encoding/json's, so every recursive walker's stack stays small.
	MaxYAMLDepth = 10_000
)

// ErrYAMLBudget is what a document past the YAML budget fails with
// (errors.Is); the error itself is a *YAMLBudgetError.
var ErrYAMLBudget = errors.New("yaml: past the alias budget")

// YAMLBudgetError is a document that, its aliases expanded, would hold
// more than the budget allows, or nest deeper than MaxYAMLDepth. Line
// and Column are those of the alias (or the value) where it went past.
// errors.As finds it as a *yaml.LoadError too, so callers that place
// yaml/v4's errors place this one the same way.
type YAMLBudgetError struct {
	Line, Column int
	// Msg says what went past the budget and what to do, without the
	// position.
	Msg string
}

func (e *YAMLBudgetError) Error() string {
	return fmt.Sprintf("yaml: line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// Is makes errors.Is(err, ErrYAMLBudget) true.
func (e *YAMLBudgetError) Is(target error) bool { return target == ErrYAMLBudget }

// As gives the error as a *yaml.LoadError, the type yaml/v4's own
// syntax errors have.
func (e *YAMLBudgetError) As(target any) bool {
	t, ok := target.(**yaml.LoadError)
	if ok {
		*t = &yaml.LoadError{Stage: yaml.ComposerStage, Message: e.Msg, Mark: yaml.Mark{Line: e.Line, Column: e.Column}}
	}
	return ok
}

// YAMLNode parses the first document of data, as yaml.Unmarshal into a
// yaml.Node does (an empty document is a zero Node; what follows the
// first document is not read), and checks that its aliases, expanded,
// fit the budget. Code may then walk the node through its alias nodes,
// or decode it, at a cost bounded by the budget.
func YAMLNode(data []byte) (*yaml.Node, error) {
	d, err := NewYAMLDecoder(data)
	if err != nil {
		return nil, err
	}
	doc, err := d.Next()
	if errors.Is(err, io.EOF) {
		return &yaml.Node{}, nil
	}
	if err != nil {
		return nil, err
	}
	return doc, nil
}

// DecodeYAMLNode decodes a node that YAMLNode or a YAMLDecoder returned
// (or a part of one) into v strictly: a key that is not a field of v's
// structs is an error (a *yaml.LoadErrors, each with its line and
// column), as are values of the wrong type and a key that a mapping
// holds twice. The budget that the node passed bounds the decode. A zero
// node (an empty document) leaves v as it is.
func DecodeYAMLNode(n *yaml.Node, v any) error {
	return decodeNode(n, v, yaml.WithKnownFields())
}

// DecodeYAMLValue decodes such a node as DecodeYAMLNode does, but keys
// that no field takes are ignored: for decoding into any, or into a
// struct that reads only part of a mapping.
func DecodeYAMLValue(n *yaml.Node, v any) error {
	return decodeNode(n, v)
}

// decodeNode is the one place nodes are decoded. yaml/v4 finds a key
// that a mapping holds twice by comparing every key with every later one,
// and records an error for every pair that match: a mapping of n keys
// costs n*n/2 comparisons, and of n copies of one key as many errors,
// so 13,000 lines of "b: 1" (64 KiB) take minutes and gigabytes, and a
// configuration file of 16 MiB days. Here the keys are checked once each
// (uniqueKeys), with yaml/v4's rule and message, and yaml/v4's own check
// is off.
func decodeNode(n *yaml.Node, v any, opts ...yaml.Option) error {
	if n.Kind == 0 {
		return nil
	}
	dups := uniqueKeys(n)
	err := n.Load(v, append(opts, yaml.WithUniqueKeys(false))...)
	if len(dups) == 0 {
		return err
	}
	var errs *yaml.LoadErrors
	switch {
	case err == nil:
		errs = &yaml.LoadErrors{}
	case errors.As(err, &errs):
	default:
		return err // not a construct error: it says more than the keys
	}
	all := append(dups, errs.Errors...)
	slices.SortStableFunc(all, func(a, b *yaml.LoadError) int {
		return cmp.Or(cmp.Compare(a.Mark.Line, b.Mark.Line), cmp.Compare(a.Mark.Column, b.Mark.Column))
	})
	return &yaml.LoadErrors{Errors: all}
}

// maxDuplicateKeys is how many duplicate keys uniqueKeys reports; the
// decode fails on the first anyway.
const maxDuplicateKeys = 100

// uniqueKeys finds the keys of n's mappings, and of the mappings its
// aliases reach, that their mapping holds already, in linear time: the
// keys yaml/v4 reports with WithUniqueKeys, by its rule (two keys are the
// same when they are of the same kind with the same text, whatever their
// tags; an alias is the same as another alias of its anchor) and with its
// message, once per repeated key rather than once per pair.
func uniqueKeys(root *yaml.Node) []*yaml.LoadError {
	type key struct {
		kind  yaml.Kind
		value string
	}
	var out []*yaml.LoadError
	seen := map[*yaml.Node]bool{}
	stack := []*yaml.Node{root}
	for len(stack) > 0 && len(out) < maxDuplicateKeys {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == nil || seen[n] {
			continue
		}
		seen[n] = true
		if n.Kind == yaml.AliasNode {
			stack = append(stack, n.Alias)
			continue
		}
		if n.Kind == yaml.MappingNode && len(n.Content) > 2 {
			first := make(map[key]int, len(n.Content)/2)
			for i := 0; i+1 < len(n.Content) && len(out) < maxDuplicateKeys; i += 2 {
				k := n.Content[i]
				id := key{k.Kind, k.Value}
				if line, ok := first[id]; ok {
					out = append(out, &yaml.LoadError{
						Stage:   yaml.ConstructorStage,
						Message: fmt.Sprintf("mapping key %#v already defined at line %d", k.Value, line),
						Mark:    yaml.Mark{Line: k.Line, Column: k.Column},
					})
					continue
				}
				first[id] = k.Line
			}
		}
		for i := len(n.Content) - 1; i >= 0; i-- {
			stack = append(stack, n.Content[i])
		}
	}
	return out
}

// YAMLDecoder reads the documents of a YAML stream (---) one by one; the
// budget covers the stream as a whole, so many small documents cannot
// each spend the floor.
type YAMLDecoder struct {
	l *yaml.Loader
	b yamlBudget
}

// NewYAMLDecoder starts reading the documents of data.
func NewYAMLDecoder(data []byte) (*YAMLDecoder, error) {
	l, err := yaml.NewLoader(bytes.NewReader(data), yaml.WithV3Defaults(),
		yaml.WithPlugin(loaderlimits.New(loaderlimits.DepthValue(MaxYAMLDepth))))
	if err != nil {
		return nil, err
	}
	return &YAMLDecoder{l: l}, nil
}

// Next returns the next document, io.EOF after the last. A syntax error
// is yaml/v4's (a *yaml.LoadError); a document past the budget is a
// *YAMLBudgetError. Documents before either were returned already.
func (d *YAMLDecoder) Next() (*yaml.Node, error) {
	var doc yaml.Node
	if err := d.l.Load(&doc); err != nil {
		return nil, err
	}
	if err := d.b.check(&doc); err != nil {
		return nil, err
	}
	return &doc, nil
}

// yamlCost is what a node costs once its aliases are expanded: the
// values it holds (itself included), the bytes of their text, and the
// nesting of its mappings and sequences.
type yamlCost struct {
	nodes, text int64
	height      int
}

// yamlBudget measures documents of one stream in document order.
type yamlBudget struct {
	// own and ownText are the values and text of the stream's documents
	// as written; nodes and text are those expanded so far.
	own, ownText int64
	nodes, text  int64
	maxNodes     int64
	maxText      int64
	// memo holds the expanded cost of each anchored node measured so
	// far, so that every alias costs one look-up, and the measure stays
	// linear in the document; busy marks the anchors being measured.
	memo map[*yaml.Node]yamlCost
	busy map[*yaml.Node]bool
}

func (b *yamlBudget) check(doc *yaml.Node) error {
	own, ownText := ownCost(doc)
	b.own += own
	b.ownText += ownText
	b.maxNodes = YAMLExpansion*b.own + YAMLExpansionFloor
	b.maxText = YAMLExpansion*b.ownText + YAMLTextFloor
	// Anchors belong to their document.
	b.memo, b.busy = map[*yaml.Node]yamlCost{}, map[*yaml.Node]bool{}
	_, err := b.walk(doc, 0)
	return err
}

// ownCost counts the values and the text of a document as written, an
// alias counting as one value.
func ownCost(n *yaml.Node) (nodes, text int64) {
	nodes, text = 1, int64(len(n.Value))
	for _, c := range n.Content {
		cn, ct := ownCost(c)
		nodes += cn
		text += ct
	}
	return nodes, text
}

// walk measures n, whose mappings and sequences above it number depth,
// adding what it holds to the running totals and failing at the first
// value (in document order) that takes them past the budget.
func (b *yamlBudget) walk(n *yaml.Node, depth int) (yamlCost, error) {
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return yamlCost{}, nil // yaml/v4 reports unknown anchors
		}
		c, err := b.expanded(n.Alias)
		if err != nil {
			return yamlCost{}, b.fail(n, err.Error())
		}
		if err := b.spend(n, c, depth); err != nil {
			return yamlCost{}, err
		}
		return c, nil
	}
	if n.Anchor != "" {
		b.busy[n] = true
		defer delete(b.busy, n)
	}
	own := yamlCost{nodes: 1, text: int64(len(n.Value))}
	if collection(n) {
		depth++
		own.height = 1
	}
	if err := b.spend(n, own, depth-own.height); err != nil {
		return yamlCost{}, err
	}
	c := own
	for _, child := range n.Content {
		cc, err := b.walk(child, depth)
		if err != nil {
			return yamlCost{}, err
		}
		c = c.add(cc, own.height)
	}
	if n.Anchor != "" {
		b.memo[n] = c.capped(b)
	}
	return c, nil
}

// spend adds c, met at n under depth collections, to the running totals.
func (b *yamlBudget) spend(n *yaml.Node, c yamlCost, depth int) error {
	b.nodes += c.nodes
	b.text += c.text
	switch {
	case depth+c.height > MaxYAMLDepth:
		return b.fail(n, fmt.Sprintf("nested deeper than %d mappings and lists once its aliases are expanded; nest less, or write the aliased part out", MaxYAMLDepth))
	case b.nodes > b.maxNodes:
		return b.fail(n, fmt.Sprintf("its aliases expand the document past %d values (%d times the %d it holds, and %d more); write the repeated part out, or refer to it less often", b.maxNodes, YAMLExpansion, b.own, YAMLExpansionFloor))
	case b.text > b.maxText:
		return b.fail(n, fmt.Sprintf("its aliases expand the document's text past %d bytes (%d times its own %d, and %d more); write the repeated part out, or refer to it less often", b.maxText, YAMLExpansion, b.ownText, YAMLTextFloor))
	}
	return nil
}

func (b *yamlBudget) fail(n *yaml.Node, msg string) error {
	return &YAMLBudgetError{Line: n.Line, Column: n.Column, Msg: msg}
}

// expanded is the cost of an anchored node, aliases expanded, without
// spending it: measured once, then looked up.
func (b *yamlBudget) expanded(n *yaml.Node) (yamlCost, error) {
	if c, ok := b.memo[n]; ok {
		return c, nil
	}
	if b.busy[n] {
		return yamlCost{}, errors.New("an alias refers to a value that holds it; YAML cannot expand it")
	}
	// An alias to an anchor not met yet: a node tree built by hand, not
	// one yaml/v4 composed (anchors come before their aliases).
	b.busy[n] = true
	defer delete(b.busy, n)
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return yamlCost{}, nil
		}
		return b.expanded(n.Alias)
	}
	c := yamlCost{nodes: 1, text: int64(len(n.Value))}
	h := 0
	if collection(n) {
		h = 1
		c.height = 1
	}
	for _, child := range n.Content {
		cc, err := b.expanded(child)
		if err != nil {
			return yamlCost{}, err
		}
		c = c.add(cc, h).capped(b)
	}
	b.memo[n] = c
	return c, nil
}

// add is c with a child's cost cc added; h is 1 when c's node is a
// mapping or a sequence, whose children are one level deeper.
func (c yamlCost) add(cc yamlCost, h int) yamlCost {
	c.nodes += cc.nodes
	c.text += cc.text
	c.height = max(c.height, cc.height+h)
	return c
}

// capped keeps a cost just past the budget, so sums never overflow: a
// cost past it fails wherever it is spent.
func (c yamlCost) capped(b *yamlBudget) yamlCost {
	c.nodes = min(c.nodes, b.maxNodes+1)
	c.text = min(c.text, b.maxText+1)
	c.height = min(c.height, MaxYAMLDepth+1)
	return c
}

func collection(n *yaml.Node) bool {
	return n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode
}

// unknownYAMLKey is yaml/v4's message, in a strict decode, for a key no
// field of the target takes.
var unknownYAMLKey = regexp.MustCompile(`^field (\S+) not found in type .+$`)

// UnknownYAMLKey returns the key a strict decode's error message msg (a
// yaml.LoadError's Message) is about, when it is about an unknown key: the
// one place that knows the decoder's wording.
func UnknownYAMLKey(msg string) (string, bool) {
	m := unknownYAMLKey.FindStringSubmatch(msg)
	if m == nil {
		return "", false
	}
	return m[1], true
}
