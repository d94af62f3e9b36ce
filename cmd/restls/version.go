package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/restls/restls/lsp"
)

// version and commit are stamped at build time by `make dist`
// (scripts/dist.sh): -ldflags "-X main.version=... -X main.commit=...".
var (
	version = "dev"
	commit  = ""
)

// buildInfo is what `restls version` reports; its JSON form is the
// `restls version --json` object.
type buildInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	GoVersion string `json:"goVersion"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	// Files are the server's default globs of scripts and test files
	// (lsp.Files): an editor asks them here before it starts a server,
	// to know whether an open file is the server's (docs/vscode.md).
	Files lsp.Files `json:"files"`
}

func versionString() string {
	v := version
	if bi, ok := debug.ReadBuildInfo(); ok && v == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	return v
}

// currentBuild is the stamped version and commit; without a stamp, the
// commit `go build` recorded from the source tree (with "-dirty" when the
// tree had uncommitted changes), or "unknown".
func currentBuild() buildInfo {
	b := buildInfo{Version: versionString(), Commit: commit, GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH,
		Files: lsp.DefaultFiles()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		b.GoVersion = bi.GoVersion
		if b.Commit == "" {
			var rev, dirty string
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value
				case "vcs.modified":
					if s.Value == "true" {
						dirty = "-dirty"
					}
				}
			}
			if rev != "" {
				b.Commit = rev + dirty
			}
		}
	}
	if b.Commit == "" {
		b.Commit = "unknown"
	}
	return b
}

// text is the one line `restls version` prints.
func (b buildInfo) text() string {
	return fmt.Sprintf("restls %s (commit %s, %s, %s/%s)\n", b.Version, b.Commit, b.GoVersion, b.OS, b.Arch)
}

func runVersion(env *cliEnv, args []string) int {
	fs := newFlagSet(env, "version", "[--json]", "Prints the version and commit of restls, the Go version it was built with and its OS/architecture.")
	asJSON := fs.Bool("json", false, "print one JSON object: version, commit, goVersion, os, arch, and files (the default globs of scripts and test files an editor selects with)")
	if rc := parseFlags(env, fs, args); rc >= 0 {
		return rc
	}
	b := currentBuild()
	if *asJSON {
		out, err := json.Marshal(b)
		if err != nil {
			fmt.Fprintf(env.stderr, "restls version: %v\n", err)
			return 1
		}
		fmt.Fprintf(env.stdout, "%s\n", out)
		return 0
	}
	fmt.Fprint(env.stdout, b.text())
	return 0
}
