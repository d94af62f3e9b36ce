package lsp

import (
	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
)

// The open document, else the disk: how every feature reads a file the
// client may have open (configuration files for navigation and the
// "add to configuration" action, fixtures and test files, scripts for
// documentInfo and the test runner). This session's document comes
// first (with its mapper), then another editor's (the workspace's
// overlay, workspace.Session.ReadFile), then the file on disk.

// openText is the text of the file at path as an editor holds it, with
// its mapper when it is this session's own document; false when no
// editor has it open. A session whose documents are not the workspace's
// overlay (a designer's) sees only its own.
func (s *session) openText(path string) (text string, m *mapper, ok bool) {
	abs := cleanAbs(path)
	if d := s.document(hostPaths.fileURI(abs)); d != nil {
		return d.doc.Text(), d.m, true
	}
	if !s.overlaysFiles() {
		return "", nil, false
	}
	if ov, ok := s.srv.ws.Overlay(abs); ok {
		return ov.Text, nil, true
	}
	return "", nil, false
}

// readFile is this session's document, else the workspace's read (an
// editor's text, else the disk with kind's limit).
func (s *session) readFile(path string, kind input.Kind) (text string, m *mapper, err error) {
	abs := cleanAbs(path)
	if d := s.document(hostPaths.fileURI(abs)); d != nil {
		return d.doc.Text(), d.m, nil
	}
	if s.overlaysFiles() {
		text, _, err = s.srv.ws.ReadFile(abs, kind)
		return text, nil, err
	}
	data, err := input.ReadFile(path, kind)
	return string(data), nil, err
}

// openTexts are the texts of the files editors hold open under root, by
// path: every editor's (the workspace's overlay) for a session whose
// documents are in it, then this session's own documents.
func (s *session) openTexts(root string) map[string][]byte {
	out := map[string][]byte{}
	if s.overlaysFiles() {
		for p, text := range s.srv.ws.Overlays(root) {
			out[p] = []byte(text)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.docs {
		if d.uri.IsFile() && d.path != "" {
			if p := cleanAbs(d.path); input.Within(root, p) {
				out[p] = []byte(d.doc.Text())
			}
		}
	}
	return out
}

// readConfig is readFile for a configuration file: its open text, else
// the file as the configuration loader reads it (config.ReadText: XML
// decoded to UTF-8), so positions found in either fall in place.
func (s *session) readConfig(path string) (text string, m *mapper, err error) {
	if text, m, open := s.openText(path); open {
		if m == nil {
			m = newMapper(text)
		}
		return text, m, nil
	}
	data, err := config.ReadText(path)
	if err != nil {
		return "", nil, err
	}
	return string(data), newFileMapper(string(data)), nil
}
