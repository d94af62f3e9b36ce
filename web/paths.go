package web

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

// relativeTo shows a configuration path to a web client: relative to the
// configuration root, or just the file name when it lies outside. A web
// client has no use for where this server keeps its files, and should not
// learn it (hover, completion, diagnostics, /v1/status).
//
// It runs for every item of an answer that names a file, so the working
// directory, against which relative paths are read, is looked up once:
// filepath.Abs asks the system for it on every call (two stat calls each,
// 40% of the server's CPU under a completion load).
func relativeTo(root string) func(string) string {
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

// pathDisplay is how web clients are shown the paths of snap's sources.
func pathDisplay(snap *config.Snapshot) workspace.PathDisplay {
	if snap == nil {
		return workspace.PathDisplay{}
	}
	return workspace.NewPathDisplay(relativeTo(snap.Sources.ConfigRoot), snap.Sources)
}
