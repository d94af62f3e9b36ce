package lsp

import (
	"github.com/restls/restls/input"

	"strings"
	"testing"

	"go.lsp.dev/uri"
)

var (
	posixPaths   = pathStyle{}
	windowsPaths = pathStyle{windows: true}
)

// TestPathStyleFromURI: the URIs Windows editors send (VS Code escapes the
// colon, Neovim and Sublime do not, a UNC share has an authority) name the
// same files, and a POSIX restls reads them as plain paths.
func TestPathStyleFromURI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, win, posix string
	}{
		{"file:///c%3A/Users/ana/scripts/a.js", `c:\Users\ana\scripts\a.js`, "c:/Users/ana/scripts/a.js"},
		{"file:///C:/Users/ana/scripts/a.js", `c:\Users\ana\scripts\a.js`, "c:/Users/ana/scripts/a.js"},
		{"file:///c:/My%20Scripts/a%C3%BC.js", `c:\My Scripts\aü.js`, "c:/My Scripts/aü.js"},
		{"file://server/share/webforms/a.js", `\\server\share\webforms\a.js`, "//server/share/webforms/a.js"},
		{"file:///home/ana/a.js", `\home\ana\a.js`, "/home/ana/a.js"},
	}
	for _, tt := range tests {
		u, err := uri.Parse(tt.in)
		if err != nil {
			t.Fatalf("parse %s: %v", tt.in, err)
		}
		if got := windowsPaths.fsPath(u); got != tt.win {
			t.Errorf("windows fsPath(%s) = %q, want %q", tt.in, got, tt.win)
		}
		if got := posixPaths.fsPath(u); got != tt.posix {
			t.Errorf("posix fsPath(%s) = %q, want %q", tt.in, got, tt.posix)
		}
	}
}

// TestPathStyleFileURI: a path from the settings (C:\webforms) becomes
// the URI VS Code uses for the same file, so diagnostics published on a
// configuration file land on the editor's document.
func TestPathStyleFileURI(t *testing.T) {
	t.Parallel()
	tests := []struct {
		style pathStyle
		in    string
		want  uri.URI
	}{
		{windowsPaths, `C:\webforms\application.yml`, "file:///c%3A/webforms/application.yml"},
		{windowsPaths, `c:/webforms/application.yml`, "file:///c%3A/webforms/application.yml"},
		{windowsPaths, `\\server\share\webforms\config.xml`, "file://server/share/webforms/config.xml"},
		{posixPaths, "/etc/webforms/config.xml", "file:///etc/webforms/config.xml"},
	}
	for _, tt := range tests {
		if got := tt.style.fileURI(tt.in); got != tt.want {
			t.Errorf("%+v fileURI(%q) = %s, want %s", tt.style, tt.in, got, tt.want)
		}
		// A document opened from that URI has the path the settings name.
		if !tt.style.same(tt.style.fsPath(tt.want), tt.in) {
			t.Errorf("%+v: %q and %q are not the same file", tt.style, tt.style.fsPath(tt.want), tt.in)
		}
	}
}

func TestPathStyleIsAbsCleanResolve(t *testing.T) {
	t.Parallel()
	tests := []struct {
		style           pathStyle
		root, in        string
		abs             bool
		clean, resolved string
	}{
		{windowsPaths, `C:\work`, `C:\webforms`, true, `C:\webforms`, `C:\webforms`},
		{windowsPaths, `C:\work`, `C:/webforms/./conf/../`, true, `C:\webforms`, `C:/webforms/./conf/../`},
		{windowsPaths, `c:\work`, `webforms\application.yml`, false, `webforms\application.yml`, `c:\work\webforms\application.yml`},
		{windowsPaths, `c:\work`, `..\shared\config.xml`, false, `..\shared\config.xml`, `c:\shared\config.xml`},
		{windowsPaths, `c:\work`, `conf/app.yml`, false, `conf\app.yml`, `c:\work\conf\app.yml`},
		{windowsPaths, `c:\work`, `\\srv\share\webforms`, true, `\\srv\share\webforms`, `\\srv\share\webforms`},
		{windowsPaths, `c:\work`, `C:`, false, `C:`, `c:\work\C:`},
		{windowsPaths, `c:\work`, `C:\`, true, `C:\`, `C:\`},
		{windowsPaths, `c:\work`, `\webforms`, false, `\webforms`, `c:\webforms`},
		{windowsPaths, `c:\work`, `/etc/webforms`, false, `\etc\webforms`, `c:\etc\webforms`},
		{posixPaths, "/work", "/etc/webforms", true, "/etc/webforms", "/etc/webforms"},
		{posixPaths, "/work", "webforms/app.yml", false, "webforms/app.yml", "/work/webforms/app.yml"},
		{posixPaths, "/work", `C:\webforms`, false, `C:\webforms`, `/work/C:\webforms`},
		{posixPaths, "", "webforms", false, "webforms", "webforms"},
		{posixPaths, "/work", "", false, ".", ""},
	}
	for _, tt := range tests {
		if got := tt.style.isAbs(tt.in); got != tt.abs {
			t.Errorf("%+v isAbs(%q) = %v, want %v", tt.style, tt.in, got, tt.abs)
		}
		if got := tt.style.clean(tt.in); got != tt.clean {
			t.Errorf("%+v clean(%q) = %q, want %q", tt.style, tt.in, got, tt.clean)
		}
		if got := tt.style.resolve(tt.root, tt.in); got != tt.resolved {
			t.Errorf("%+v resolve(%q, %q) = %q, want %q", tt.style, tt.root, tt.in, got, tt.resolved)
		}
	}
}

// TestPathStyleSame: a file event for c:\webforms\application.yml (VS
// Code's spelling) reloads the source the settings name as
// C:\Webforms\Application.yml; on Linux case matters.
func TestPathStyleSame(t *testing.T) {
	t.Parallel()
	tests := []struct {
		style pathStyle
		a, b  string
		want  bool
	}{
		{windowsPaths, `c:\webforms\application.yml`, `C:\Webforms\Application.yml`, true},
		{windowsPaths, `c:\webforms\application.yml`, `C:/webforms/conf/../application.yml`, true},
		{windowsPaths, `\\SRV\Share\a.xml`, `\\srv\share\A.XML`, true},
		{windowsPaths, `c:\webforms\application.yml`, `d:\webforms\application.yml`, false},
		{windowsPaths, `c:\webforms\application.yml`, `c:\webforms\application.yaml`, false},
		{posixPaths, "/webforms/application.yml", "/Webforms/application.yml", false},
		{posixPaths, "/webforms/application.yml", "/webforms/application.yml", true},
	}
	for _, tt := range tests {
		if got := tt.style.same(tt.a, tt.b); got != tt.want {
			t.Errorf("%+v same(%q, %q) = %v, want %v", tt.style, tt.a, tt.b, got, tt.want)
		}
	}
}

// matchGlob is how a scriptKinds glob meets a document's path: both in
// the slash form (settings.go stores globs so, session.kindOf passes the
// path so) through config's one glob rule.
func (ps pathStyle) matchGlob(glob, file string) bool {
	g, err := input.FileGlob(ps.slash(glob))
	return err == nil && g.MatchPath(ps.slash(file))
}

func TestPathStyleMatchGlob(t *testing.T) {
	t.Parallel()
	tests := []struct {
		style      pathStyle
		glob, file string
		want       bool
	}{
		{windowsPaths, "**/tasks/*.js", `c:\work\tasks\a.js`, true},
		{windowsPaths, `**\tasks\*.js`, `c:\work\tasks\a.js`, true},
		{windowsPaths, "**/tasks/*.js", `c:\work\tasks\sub\a.js`, false},
		{windowsPaths, "*.js", `c:\work\a.js`, true},
		{windowsPaths, "C:/work/tasks/*.js", `c:\work\tasks\a.js`, true},
		{posixPaths, "**/tasks/*.js", "/work/tasks/a.js", true},
		{posixPaths, "**/tasks/*.js", `/work\tasks\a.js`, false},
	}
	for _, tt := range tests {
		if got := tt.style.matchGlob(tt.glob, tt.file); got != tt.want {
			t.Errorf("%+v matchGlob(%q, %q) = %v, want %v", tt.style, tt.glob, tt.file, got, tt.want)
		}
	}
}

// TestPathStyleGlobPattern: watcher patterns use "/" (a "\" escapes in an
// LSP glob) and VS Code's lower-case drive letter.
func TestPathStyleGlobPattern(t *testing.T) {
	t.Parallel()
	if got, want := windowsPaths.globPattern(`C:\webforms\application.yml`), "c:/webforms/application.yml"; got != want {
		t.Errorf("windows globPattern = %q, want %q", got, want)
	}
	if got, want := posixPaths.globPattern("/etc/webforms/application.yml"), "/etc/webforms/application.yml"; got != want {
		t.Errorf("posix globPattern = %q, want %q", got, want)
	}
}

// FuzzPathStyle: clean is idempotent, keeps absoluteness, and a path is
// always the same file as its cleaned and its slashed form on Windows.
func FuzzPathStyle(f *testing.F) {
	for _, s := range []string{`C:\a\..\b`, `\\srv\share\x`, `c:`, `C:/`, `//`, `\\`, `a/b/../../..`, "/", "",
		strings.Repeat(`..\`, 500) + "x", `C:\` + strings.Repeat(`a\`, 2000), `\\` + strings.Repeat("s", 5000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		for _, ps := range []pathStyle{posixPaths, windowsPaths} {
			c := ps.clean(p)
			if c2 := ps.clean(c); c2 != c {
				t.Fatalf("%+v clean not idempotent: %q -> %q -> %q", ps, p, c, c2)
			}
			if ps.isAbs(p) != ps.isAbs(c) {
				t.Fatalf("%+v isAbs(%q) = %v but isAbs(clean) = %v (%q)", ps, p, ps.isAbs(p), ps.isAbs(c), c)
			}
			if !ps.same(p, c) {
				t.Fatalf("%+v %q is not the same as its cleaned %q", ps, p, c)
			}
		}
		if !windowsPaths.same(p, windowsPaths.slash(p)) {
			t.Fatalf("windows %q is not the same as %q", p, windowsPaths.slash(p))
		}
	})
}
