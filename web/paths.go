package web

import (
	"path/filepath"
	"strings"

	"github.com/restls/restls/config"
	"github.com/restls/restls/lsp"
)

// relativeTo shows a configuration path to a web client: relative to the
// configuration root, or just the file name when it lies outside. A web
// client has no use for where this server keeps its files, and should not
// learn it (hover, completion, diagnostics, /v1/status).
func relativeTo(root string) func(string) string {
	if root != "" {
		if abs, err := filepath.Abs(root); err == nil {
			root = abs
		}
	}
	return func(p string) string {
		abs, err := filepath.Abs(p)
		if err != nil {
			return filepath.Base(p)
		}
		if root != "" {
			if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return filepath.ToSlash(rel)
			}
		}
		return filepath.Base(abs)
	}
}

// pathDisplay is how web clients are shown the paths of snap's sources.
func pathDisplay(snap *config.Snapshot) lsp.PathDisplay {
	if snap == nil {
		return lsp.PathDisplay{}
	}
	return lsp.NewPathDisplay(relativeTo(snap.Sources.ConfigRoot), snap.Sources)
}
