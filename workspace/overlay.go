package workspace

import (
	"path/filepath"
	"sync"

	"github.com/restls/restls/input"
)

// The text of open documents (gopls' fs_overlay): what an editor holds,
// saved or not, read in place of the disk by every surface that reads a
// file (ReadFile). Documents are files only, keyed by their cleaned path;
// several clients may hold one (two editors, a designer socket), and the
// text set last is the one read.

type overlays struct {
	mu  sync.Mutex
	seq uint64
	m   map[string]map[int]Overlay // path -> holder -> its text
}

// Overlay is an open document's text and version, as its client sent it.
type Overlay struct {
	Text    string
	Version int32
	seq     uint64
}

// SetOverlay records that holder (a language-server session) has the file
// at path open with text at version.
func (s *Session) SetOverlay(holder int, path string, version int32, text string) {
	o := &s.overlays
	path = filepath.Clean(path)
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.m == nil {
		o.m = map[string]map[int]Overlay{}
	}
	h := o.m[path]
	if h == nil {
		h = map[int]Overlay{}
		o.m[path] = h
	}
	o.seq++
	h[holder] = Overlay{Text: text, Version: version, seq: o.seq}
}

// DropOverlay records that holder closed the file at path (or ended).
func (s *Session) DropOverlay(holder int, path string) {
	o := &s.overlays
	path = filepath.Clean(path)
	o.mu.Lock()
	defer o.mu.Unlock()
	if h := o.m[path]; h != nil {
		delete(h, holder)
		if len(h) == 0 {
			delete(o.m, path)
		}
	}
}

// DropOverlays forgets every file holder has open (its session ended).
func (s *Session) DropOverlays(holder int) {
	o := &s.overlays
	o.mu.Lock()
	defer o.mu.Unlock()
	for path, h := range o.m {
		delete(h, holder)
		if len(h) == 0 {
			delete(o.m, path)
		}
	}
}

// Overlay is the text of the file at path as an editor holds it; false
// when no client has it open.
func (s *Session) Overlay(path string) (Overlay, bool) {
	o := &s.overlays
	path = filepath.Clean(path)
	o.mu.Lock()
	defer o.mu.Unlock()
	var best Overlay
	found := false
	for _, ov := range o.m[path] {
		if !found || ov.seq > best.seq {
			best, found = ov, true
		}
	}
	return best, found
}

// Overlays are the open files under root ("" for all) and their texts.
func (s *Session) Overlays(root string) map[string]string {
	o := &s.overlays
	o.mu.Lock()
	defer o.mu.Unlock()
	out := map[string]string{}
	for p, h := range o.m {
		if root != "" && !input.Within(root, p) {
			continue
		}
		var best Overlay
		for _, ov := range h {
			if ov.seq > best.seq {
				best = ov
			}
		}
		out[p] = best.Text
	}
	return out
}

// ReadFile is the one way a surface reads a file a client may have open:
// its open text, else the file through input.ReadFile with kind's limit.
// open says which it was.
func (s *Session) ReadFile(path string, kind input.Kind) (text string, open bool, err error) {
	if ov, ok := s.Overlay(path); ok {
		return ov.Text, true, nil
	}
	data, err := input.ReadFile(path, kind)
	return string(data), false, err
}

// ReadFileIn is ReadFile for a file that must stay inside root
// (input.ReadFileIn: what an agent or a repository names): the open text
// of a file that is, or would be once saved, inside root, else the file.
func (s *Session) ReadFileIn(root, path string, kind input.Kind) (text string, open bool, err error) {
	if ov, ok := s.Overlay(path); ok {
		// Judged as the file it would be written to: an unsaved new file
		// has no disk file to resolve.
		if err := input.WritableIn(root, path, kind); err != nil {
			return "", false, err
		}
		return ov.Text, true, nil
	}
	data, err := input.ReadFileIn(root, path, kind)
	return string(data), false, err
}
