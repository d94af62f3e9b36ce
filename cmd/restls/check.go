package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/restls/restls/check"
	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
	"github.com/restls/restls/openapi"
	"github.com/restls/restls/workspace"
)

// checkGCPercent is restls check's garbage collection target unless GOGC
// is set: the run is a batch whose garbage (each script's syntax tree) dies
// young, so collecting at 9 times the live heap instead of twice spends
// about a fifth less CPU on 10,000 scripts (400: 5 times, then 800 once
// the walks made less garbage, 4% less again) for some 25 MB more peak
// memory, still below oxlint's ("restls check against oxlint" in
// docs/decisions.md).
const checkGCPercent = 800

// kindMapFlag is the repeatable --kind-map GLOB=KIND.
type kindMapFlag struct{ m config.KindMap }

func (k *kindMapFlag) String() string { return "" }
func (k *kindMapFlag) Set(v string) error {
	glob, name, ok := strings.Cut(v, "=")
	if !ok || glob == "" {
		return fmt.Errorf("want GLOB=KIND, e.g. '**/tasks/**=scriptTask', got %q", v)
	}
	kind, err := config.ParseKind(name)
	if err != nil {
		return err
	}
	g, err := input.FileGlob(glob)
	if err != nil {
		return fmt.Errorf("%q: %v: %s", glob, err, input.GlobSyntax)
	}
	k.m = append(k.m, config.KindGlob{Glob: g, Kind: kind})
	return nil
}

func runCheck(env *cliEnv, args []string) int {
	fs := newFlagSet(env, "check", "[--format F] [--strict] [--unused] [--since REF] [--include GLOB] [--exclude GLOB] [--kind-map GLOB=KIND] [--openapi ID=PATH_OR_URL] [config flags] [PATH...]", `
Checks every script under the PATHs (default .) as the language server
would, and the service configuration: each problem with file, line,
column, severity, message and code (docs/diagnostics.md).

Scripts are the files matching --include (default **/*.js) and no
--exclude, relative to the directory walked, that .gitignore does not
ignore, in no directory below it whose name starts with "." (.git,
.vscode, .github) and no node_modules, as every project walk leaves them
out: name one as a PATH to check it. A file named as a PATH is always
checked. A script's kind is its
first-line "// restls-kind: K" comment, else the first --kind-map glob
that matches it, else scriptService (the scriptKinds setting's rule).

--openapi ID=PATH_OR_URL (and the project file's openapi) attaches API
descriptions: the openapi-* diagnostics the editor shows are reported too,
once the descriptions have loaded.

Exit status: 0 when clean; 1 when there is an error (or, with --strict, a
warning); 2 for usage errors, unreadable paths, scripts or configuration
files, no service configuration found, and a description file that does
not exist.`)
	format := fs.String("format", "text", "output `format`: text (file:line:col: severity: message [code]), json, sarif (SARIF 2.1.0) or github (workflow-command annotations)")
	strict := fs.Bool("strict", false, "exit 1 on warnings too")
	sinceRef := fs.String("since", "", "also report the calls whose serviceId becomes unknown or unusable, whose url changes host or path, or whose authorization kind changes between the configuration files at git `REF` and the working tree's (since-* codes, warnings)")
	unused := fs.Bool("unused", false, "report service-unused (information) on each configuration entry that no script checked, of a kind reading its file, calls; --strict does not turn it on")
	var include, exclude stringList
	fs.Var(&include, "include", "check the files matching this `glob` below each directory (repeatable; default "+check.DefaultInclude+")")
	fs.Var(&exclude, "exclude", "skip the files matching this `glob` (repeatable)")
	var kinds kindMapFlag
	fs.Var(&kinds, "kind-map", "`GLOB=KIND`: scripts matching GLOB are of KIND unless their first line names a kind (repeatable; the first match wins)")
	var apis openAPIFlags
	fs.Var(&apis, "openapi", openAPIFlagHelp)
	cf := configFlags{env: env}
	cf.register(fs)
	paths, rc := parseInterleaved(env, fs, args)
	if rc >= 0 {
		return rc
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(env.stderr, "restls check: "+format+"\n", a...)
		return 2
	}
	if !slices.Contains(check.Formats, *format) {
		return usageErr("unknown --format %q: use one of %s", *format, strings.Join(check.Formats, ", "))
	}
	if len(paths) > 0 {
		cf.start = paths[0]
	}
	if cf.rootMissing("check") {
		return 2
	}
	cf.checkDefaults(fs, &include, &exclude, strict, &kinds)
	if env.getenv("GOGC") == "" && env.stdout == os.Stdout { // the real process, not an in-process test
		debug.SetGCPercent(checkGCPercent)
	}
	descs := cf.openAPI(apis)
	for _, d := range descs {
		if openapi.IsURL(d.Location) {
			continue
		}
		// A description the check was told to use and cannot find would
		// silently check nothing of its service's calls.
		if _, err := os.Stat(d.Location); err != nil {
			return usageErr("API description %s: %v: fix the path in --openapi or the project file's openapi", d.Location, unwrapPathErr(err))
		}
	}
	so := cf.sessionOptions(descs)
	so.Kinds, so.Recorded = kinds.m, true // the flags' kind map over the file's
	ws := workspace.NewSession(so)
	if !ws.Registry().Get().For(config.ScriptService).Loaded {
		// A check that found no configuration would check no serviceId:
		// a CI job started in the wrong directory must fail, as test does.
		// An empty but existing configuration still checks.
		return usageErr("%s", errNoConfiguration)
	}
	opts := check.Options{Paths: paths, Include: include, Exclude: exclude, Workspace: ws, Unused: *unused}
	if *sinceRef != "" {
		base, err := sinceSnapshot(*sinceRef, cf.sources())
		if err != nil {
			return usageErr("%v", err)
		}
		opts.Since = &check.Since{Ref: *sinceRef, Config: base}
	}
	rep, err := check.Run(opts)
	if err != nil {
		return usageErr("%v", err)
	}
	cf.disabled(rep)
	if err := check.Write(env.stdout, rep, *format, versionString()); err != nil {
		fmt.Fprintf(env.stderr, "restls check: %v\n", err)
		return 2
	}
	return rep.ExitCode(*strict)
}

// unwrapPathErr drops the path of an *fs.PathError, which the message
// names already.
func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// errNoConfiguration is what check, test and run say when no
// configuration source is found at all.
const errNoConfiguration = config.NoConfiguration

// parseInterleaved parses flags that may come before, between or after
// the PATHs, and returns the PATHs, or the exit status (as parseFlags).
func parseInterleaved(env *cliEnv, fs *flag.FlagSet, args []string) ([]string, int) {
	if rc := parseFlags(env, fs, args); rc >= 0 {
		return nil, rc
	}
	var positional []string
	for fs.NArg() > 0 {
		positional = append(positional, fs.Arg(0))
		if rc := parseFlags(env, fs, fs.Args()[1:]); rc >= 0 {
			return nil, rc
		}
	}
	return positional, -1
}
