package mcp

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/restls/restls/input"
)

// A path an agent names is relative to the project root (or absolute),
// and must lead, its symbolic links followed, to a file below the root:
// input.ReadFileIn reads it, the one bounded reader, which refuses the
// rest with ErrOutside. The tools write nothing: an agent writes the
// files it was given the text of.

// errOutside says what to do with a path outside the root.
func (s *Server) errOutside(path string) error {
	return fmt.Errorf("%s is outside %s (its links followed): name a file below the root, relative to it", path, s.root())
}

// abs is the path an argument names: relative to the root, or absolute.
func (s *Server) abs(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(s.o.Root, filepath.FromSlash(path))
}

// read reads the file of kind k an argument names, confined to the root.
// It returns the file's absolute path.
func (s *Server) read(path string, k input.Kind) (string, []byte, error) {
	if path == "" {
		return "", nil, errors.New("no path given")
	}
	if len(path) > maxPath {
		return "", nil, fmt.Errorf("the path is %d bytes, above the %d limit", len(path), maxPath)
	}
	abs := s.abs(path)
	// An editor's open text, as the references tool's index reads it,
	// else the file.
	text, _, err := s.o.Session.ReadFileIn(s.o.Root, abs, k)
	data := []byte(text)
	switch {
	case errors.Is(err, input.ErrOutside):
		return "", nil, s.errOutside(path)
	case errors.Is(err, fs.ErrNotExist):
		return "", nil, fmt.Errorf("%s does not exist below %s", path, s.root())
	case err != nil:
		var fe *input.FileError
		if errors.As(err, &fe) {
			return "", nil, fmt.Errorf("%s: %s", s.rel(abs), s.hideRoot(fe.Error()))
		}
		return "", nil, fmt.Errorf("cannot read %s: %w", s.rel(abs), unwrapPath(err))
	}
	return abs, data, nil
}

// rel shows a path as the agent names it: relative to the root, with
// forward slashes, when it is below the root; as it is otherwise, or, for
// a remote client (Options.Remote), by its file name only: a client of
// /mcp is never shown where the server keeps its files.
func (s *Server) rel(path string) string {
	if path == "" {
		return ""
	}
	r, err := filepath.Rel(s.o.Root, path)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) || filepath.IsAbs(r) {
		if s.o.Remote && filepath.IsAbs(path) {
			return filepath.Base(path)
		}
		return path
	}
	return filepath.ToSlash(r)
}

// root names the project root in messages: with its path for the local
// agent, without it for a remote one.
func (s *Server) root() string {
	if s.o.Remote {
		return "the project root"
	}
	return "the project root " + s.o.Root
}

// hideRoot is a message without the root's path, for a remote client.
func (s *Server) hideRoot(msg string) string {
	if !s.o.Remote {
		return msg
	}
	msg = strings.ReplaceAll(msg, s.o.Root+string(filepath.Separator), "")
	return strings.ReplaceAll(msg, s.o.Root, "the project root")
}

// maxPath bounds a path argument.
const maxPath = 4096

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
