package mcp

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/restls/restls/config"
	"github.com/restls/restls/hints"
	"github.com/restls/restls/input"
	"github.com/restls/restls/textpos"
	"github.com/restls/restls/workspace"
)

// ScriptArg names a script: its text, its path in the project, or both
// (the text of a file not saved yet: the path then says where it lives,
// which decides its kind and the recorded answers it sees).
type ScriptArg struct {
	Text        string `json:"text,omitempty" jsonschema:"the script's JavaScript text; give text, path or both (text not saved yet at path)"`
	Path        string `json:"path,omitempty" jsonschema:"the script's path relative to the project root (forward slashes); read from disk when text is not given"`
	Kind        string `json:"kind,omitempty" jsonschema:"the script kind: scriptService, scriptTask or validationScript; default: the script's first-line '// restls-kind: K' comment, else the project's scriptKinds, else scriptService"`
	Environment string `json:"environment,omitempty" jsonschema:"the project file's environment whose configuration to use (restls.yaml's environments); default its defaultEnvironment"`
}

// script is a ScriptArg read and decided once.
type script struct {
	// abs is the script's absolute path: the file's, or an unsaved
	// script's name below the root.
	abs, text string
	// disk: text was read from the file (a byte order mark takes no
	// column).
	disk   bool
	kind   config.Kind
	reason string
	snap   workspace.Snapshot
	reg    *config.Registry
	doc    *hints.Document
	m      *textpos.Mapper
}

// untitled names a script given as text only.
const untitled = "untitled.js"

// script reads a, takes the snapshot and decides the kind.
func (s *Server) script(ctx context.Context, a ScriptArg) (*script, error) {
	if a.Text == "" && a.Path == "" {
		return nil, fmt.Errorf("give the script as text, as a path relative to %s, or both", s.root())
	}
	if len(a.Text) > s.o.Limits.Text {
		return nil, fmt.Errorf("text is %d bytes, above the %d limit: give a shorter script, or its path", len(a.Text), s.o.Limits.Text)
	}
	sc := &script{text: a.Text}
	switch {
	case a.Text == "":
		abs, data, err := s.read(a.Path, input.Script)
		if err != nil {
			return nil, err
		}
		sc.abs, sc.text, sc.disk = abs, string(data), true
	case a.Path != "":
		if len(a.Path) > maxPath {
			return nil, fmt.Errorf("the path is %d bytes, above the %d limit", len(a.Path), maxPath)
		}
		abs := s.abs(a.Path)
		if err := input.WritableIn(s.o.Root, abs, input.Script); err != nil {
			return nil, s.errOutside(a.Path)
		}
		sc.abs = abs
	default:
		sc.abs = filepath.Join(s.o.Root, untitled)
	}
	snap, err := s.snapshot(ctx, a.Environment)
	if err != nil {
		return nil, err
	}
	sc.snap = snap
	if a.Kind != "" {
		k, err := config.ParseKind(a.Kind)
		if err != nil {
			return nil, err
		}
		sc.kind, sc.reason = k, "the kind argument"
	} else {
		d := snap.Kind(filepath.ToSlash(sc.abs), sc.text)
		sc.kind, sc.reason = d.Kind, kindReason(d)
	}
	sc.reg = snap.Registry(sc.kind)
	sc.doc = hints.NewDocument(sc.text)
	if sc.disk {
		sc.m = textpos.NewFile(sc.text)
	} else {
		sc.m = textpos.New(sc.text)
	}
	return sc, nil
}

// display shows configuration files' paths relative to the root.
func (s *Server) display(snap workspace.Snapshot, sc *script, reg *config.Registry) hints.Display {
	return hints.Display{Path: s.rel, APIs: snap.APIsFor(sc.abs, reg), ConfiguredFor: hints.ConfiguredIn(snap.Config, sc.kind), TimeLimit: snap.TimeLimit(sc.kind), EngineLevel: snap.EngineLevel}
}

// Pos is a position in a text: line and column from 1, the column
// counted in characters (Unicode code points), as restls check prints.
type Pos struct {
	Line   int `json:"line" jsonschema:"line, from 1"`
	Column int `json:"column" jsonschema:"column, from 1, in characters (Unicode code points)"`
}

// Span is a range of a text, End after its last character.
type Span struct {
	Start Pos `json:"start"`
	End   Pos `json:"end"`
}

func (sc *script) pos(off int) Pos {
	p := sc.m.RunePos(textpos.ByteOffset(off))
	return Pos{Line: p.Line, Column: p.Col}
}

func (sc *script) span(r hints.Range) Span { return Span{Start: sc.pos(r.Start), End: sc.pos(r.End)} }

// offset is the byte offset of p, or an error naming the script's size
// when p is not in it.
func (sc *script) offset(p Pos) (int, error) {
	if p.Line < 1 || p.Line > sc.m.Lines() || p.Column < 1 {
		return 0, fmt.Errorf("line %d, column %d is not in the script (%d lines; lines and columns count from 1)", p.Line, p.Column, sc.m.Lines())
	}
	return int(sc.m.OffsetOfRunes(textpos.RunePos{Line: p.Line, Col: p.Column})), nil
}

// kindReason says why a script has its kind.
func kindReason(d config.KindDecision) string {
	switch d.Source {
	case config.KindFromDirective:
		return "its first-line // restls-kind: comment"
	case config.KindFromMap:
		return "the project's scriptKinds glob " + d.Glob
	}
	return "the default (no // restls-kind: first line, no scriptKinds glob matches)"
}
