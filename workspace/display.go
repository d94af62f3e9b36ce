package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/restls/restls/config"
)

// PathDisplay rewrites the configuration paths in what a client is shown:
// the file of a diagnostic, the configuration files its message names, and
// the sources. The zero value changes nothing.
type PathDisplay struct {
	// Show is how a path is shown (the lsp session's ShowPath); nil
	// shows paths as they are.
	Show func(path string) string
	// Files are the paths a message may name (config.Sources.Files and the
	// sources themselves), longest first so a file is not half-replaced
	// by its directory.
	Files []string
}

// NewPathDisplay is the display of show for the configuration read from
// src.
func NewPathDisplay(show func(string) string, src config.Sources) PathDisplay {
	if show == nil {
		return PathDisplay{}
	}
	files := append(src.Files(), src.ConfigRoot, src.ServiceXML, src.HandlerXML, src.PlatformConfig)
	files = append(files, src.Properties...)
	files = slices.DeleteFunc(files, func(f string) bool { return f == "" })
	sort.Slice(files, func(i, j int) bool { return len(files[i]) > len(files[j]) })
	return PathDisplay{Show: show, Files: slices.Compact(files)}
}

// Path is the path f as the client is shown it.
func (p PathDisplay) Path(f string) string {
	if p.Show == nil || f == "" {
		return f
	}
	return p.Show(f)
}

// Diagnostic is d as the client is shown it.
func (p PathDisplay) Diagnostic(d config.Diagnostic) config.Diagnostic {
	if p.Show == nil {
		return d
	}
	d.File = p.Path(d.File)
	d.Message = p.Text(d.Message)
	return d
}

// Text is a message as the client is shown it: every configuration file
// it names (a diagnostic's position included) as Path shows it.
func (p PathDisplay) Text(s string) string {
	if p.Show == nil {
		return s
	}
	for _, f := range p.Files {
		if strings.Contains(s, f) {
			s = strings.ReplaceAll(s, f, p.Path(f))
		}
	}
	return s
}

// Sources is src as the client is shown it.
func (p PathDisplay) Sources(src config.Sources) config.Sources {
	if p.Show == nil {
		return src
	}
	out := src
	out.ConfigRoot, out.ServiceXML, out.HandlerXML, out.PlatformConfig =
		p.Path(src.ConfigRoot), p.Path(src.ServiceXML), p.Path(src.HandlerXML), p.Path(src.PlatformConfig)
	out.Properties = nil
	for _, f := range src.Properties {
		out.Properties = append(out.Properties, p.Path(f))
	}
	return out
}

// RelativeTo shows a configuration path to a web client: relative to the
// configuration root, or just the file name when it lies outside. A web
// client has no use for where this server keeps its files, and should not
// learn it (hover, completion, diagnostics, /v1/status, a designer's
// debug console).
//
// It runs for every item of an answer that names a file, so the working
// directory, against which relative paths are read, is looked up once:
// filepath.Abs asks the system for it on every call (two stat calls each,
// 40% of the server's CPU under a completion load).
func RelativeTo(root string) func(string) string {
	wd, wdErr := os.Getwd()
	abs := func(p string) (string, bool) {
		switch {
		case filepath.IsAbs(p):
			return filepath.Clean(p), true
		case wdErr != nil:
			return "", false
		}
		return filepath.Join(wd, p), true
	}
	if root != "" {
		if a, ok := abs(root); ok {
			root = a
		}
	}
	return func(p string) string {
		a, ok := abs(p)
		if !ok {
			return filepath.Base(p)
		}
		if root != "" {
			if rel, err := filepath.Rel(root, a); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return filepath.ToSlash(rel)
			}
		}
		return filepath.Base(a)
	}
}
