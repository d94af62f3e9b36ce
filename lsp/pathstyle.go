package lsp

import (
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"go.lsp.dev/uri"
)

// pathStyle is how file paths are spelled and compared on one operating
// system. Every conversion between a file URI and a path, and every
// comparison of two paths, goes through it, so tests on Linux cover the
// Windows rules (drive letters, backslashes, case-insensitive names) with
// pathStyle{windows: true}.
type pathStyle struct{ windows bool }

// hostPaths is the style of the machine restls runs on.
var hostPaths = pathStyle{windows: runtime.GOOS == "windows"}

func (ps pathStyle) platform() uri.Platform {
	if ps.windows {
		return uri.PlatformWindows
	}
	return uri.PlatformPOSIX
}

// fsPath is the path of a file URI, as VS Code spells it: on Windows
// backslashes and a lower-case drive letter (file:///C:/a and
// file:///c%3A/a are both c:\a).
func (ps pathStyle) fsPath(u uri.URI) string { return uri.FsPathFor(u, ps.platform(), false) }

// fileURI is the file URI of an absolute path.
func (ps pathStyle) fileURI(p string) uri.URI { return uri.FileFor(ps.platform(), p) }

// volume splits a Windows path into its drive ("C:") or UNC share
// ("\\server\share") and the rest; POSIX paths have no volume.
func (ps pathStyle) volume(p string) (vol, rest string) {
	if !ps.windows {
		return "", p
	}
	if len(p) >= 2 && isASCIILetter(p[0]) && p[1] == ':' {
		return p[:2], p[2:]
	}
	if len(p) >= 2 && isWinSep(p[0]) && isWinSep(p[1]) {
		// \\server\share\rest: the volume ends before the separator after
		// the share name.
		seps := 0
		for i := 2; i < len(p); i++ {
			if isWinSep(p[i]) {
				seps++
				if seps == 2 {
					return p[:i], p[i:]
				}
			}
		}
		return p, ""
	}
	return "", p
}

// isAbs reports whether p names a file without a base directory: /a on
// POSIX; C:\a, C:/a or \\server\share\a on Windows (\a and C:a are
// relative to the current drive or directory, so not absolute).
func (ps pathStyle) isAbs(p string) bool {
	if !ps.windows {
		return strings.HasPrefix(p, "/")
	}
	vol, rest := ps.volume(p)
	if len(vol) > 2 { // UNC
		return true
	}
	return vol != "" && rest != "" && isWinSep(rest[0])
}

// clean is filepath.Clean with this style's rules: on Windows both / and
// \ separate, and the result uses \.
func (ps pathStyle) clean(p string) string {
	if !ps.windows {
		return path.Clean(p)
	}
	vol, rest := ps.volume(p)
	rest = strings.ReplaceAll(rest, `\`, "/")
	if rest != "" {
		rest = path.Clean(rest)
		if rest == "." && vol != "" {
			rest = ""
		}
		// A relative path whose first element holds a colon (.\N:x)
		// would read as a drive once cleaned (N:x): keep the .\ in
		// front, as filepath.Clean does on Windows.
		if vol == "" {
			first, _, _ := strings.Cut(rest, "/")
			if strings.Contains(first, ":") {
				rest = "./" + rest
			}
		}
	}
	return strings.ReplaceAll(vol, "/", `\`) + strings.ReplaceAll(rest, "/", `\`)
}

// resolve returns p, a path from the settings, against the workspace root
// when it is relative; "" stays "" (the setting is unset).
func (ps pathStyle) resolve(root, p string) string {
	if p == "" || root == "" || ps.isAbs(p) {
		return p
	}
	if ps.windows {
		if isWinSep(p[0]) { // \webforms: on the root's drive
			vol, _ := ps.volume(root)
			return ps.clean(vol + p)
		}
		return ps.clean(root + `\` + p)
	}
	return path.Join(root, p)
}

// slash is p with forward slashes, for glob matching; on Windows the drive
// letter is lower case, as in fsPath.
func (ps pathStyle) slash(p string) string {
	if !ps.windows {
		return p
	}
	p = strings.ReplaceAll(p, `\`, "/")
	if len(p) >= 2 && isASCIILetter(p[0]) && p[1] == ':' {
		p = strings.ToLower(p[:1]) + p[1:]
	}
	return p
}

// same reports whether two absolute paths name the same file: on
// Windows letter case and the separator do not matter (NTFS, as Windows
// sets it up, folds case).
func (ps pathStyle) same(a, b string) bool {
	if !ps.windows {
		return path.Clean(a) == path.Clean(b)
	}
	return strings.EqualFold(ps.clean(a), ps.clean(b))
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isWinSep(c byte) bool { return c == '\\' || c == '/' }

// cleanAbs makes p absolute against the current directory and cleans it.
func cleanAbs(p string) string {
	if hostPaths.isAbs(p) {
		return hostPaths.clean(p)
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// globPattern is the watcher pattern for one absolute file: LSP glob
// patterns separate with "/", where "\" would escape; VS Code matches them
// against its fsPath, whose drive letter is lower case.
func (ps pathStyle) globPattern(abs string) string { return ps.slash(abs) }

// canonicalURI is a URI a client passes as a string (a command argument)
// in the form documents are kept under: vscode-uri's, as protocol decodes
// every DocumentURI. Neovim on Windows sends file:///C:/a.js for the
// document VS Code calls file:///c%3A/a.js.
func canonicalURI(s string) uri.URI {
	if u, err := uri.Parse(s); err == nil {
		return u
	}
	return uri.URI(s)
}
