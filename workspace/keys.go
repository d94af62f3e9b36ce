package workspace

import (
	"reflect"
	"sort"
	"strings"
	"sync"

	yaml "go.yaml.in/yaml/v4"

	"github.com/restls/restls/config"
)

// keySet is the keys a mapping of the project file may hold: fields are
// the fixed keys and what their values hold; any, when not nil, is what
// the value of every key holds in a mapping of free keys (environment
// names). A nil *keySet is a value whose keys are not checked here (a
// list, a scalar, scriptKinds' globs).
type keySet struct {
	fields map[string]*keySet
	any    *keySet
}

// projectKeys are the keys of rawProject, from its yaml tags: the decoder
// and this check cannot disagree.
var projectKeys = sync.OnceValue(func() *keySet { return keysOf(reflect.TypeFor[rawProject]()) })

var nodeType = reflect.TypeFor[yaml.Node]()

func keysOf(t reflect.Type) *keySet {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == nodeType:
		return nil
	case t.Kind() == reflect.Map:
		if v := keysOf(t.Elem()); v != nil {
			return &keySet{any: v}
		}
		return nil
	case t.Kind() != reflect.Struct:
		return nil
	}
	ks := &keySet{fields: map[string]*keySet{}}
	for f := range t.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if opts == "inline" {
			for k, v := range keysOf(f.Type).fields {
				ks.fields[k] = v
			}
			continue
		}
		if name != "" && name != "-" {
			ks.fields[name] = keysOf(f.Type)
		}
	}
	return ks
}

func (ks *keySet) names() []string {
	out := make([]string, 0, len(ks.fields))
	for k := range ks.fields {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// unknown is a key the file does not have, where it was found (path, as
// "environments.test"; "" at the top) and the nearest known key.
type unknown struct {
	key, path, near string
	known           []string
	node            *yaml.Node
}

// unknownKeys lists every unknown key below m, in document order.
func unknownKeys(m *yaml.Node) []unknown {
	var out []unknown
	walkKeys(m, projectKeys(), "", &out)
	return out
}

func walkKeys(m *yaml.Node, ks *keySet, path string, out *[]unknown) {
	if ks == nil || m.Kind != yaml.MappingNode {
		return // the decoder reports a value of the wrong type
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		sub := path + k.Value
		if path != "" {
			sub = path + "." + k.Value
		}
		if ks.any != nil {
			walkKeys(v, ks.any, sub, out)
			continue
		}
		child, ok := ks.fields[k.Value]
		if !ok {
			u := unknown{key: k.Value, path: path, known: ks.names(), node: k}
			if near := config.Nearest(k.Value, u.known, 1); len(near) > 0 {
				u.near = near[0]
			}
			*out = append(*out, u)
			continue
		}
		walkKeys(v, child, sub, out)
	}
}
