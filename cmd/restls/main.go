// Command restls is the language server, dry-run runtime and hints backend
// for platform scripts that call REST services through api.rest.v1.
//
// It is the only package that wires config, remote, lsp, web and runtime
// together, and it only wires: the commands are the table in this file,
// and what a mode does belongs to the package that serves it (lsp, web,
// remote, runtime); docs/decisions.md says what lives where.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/restls/restls/config"
	"github.com/restls/restls/runtime/isolate"
)

// command is one subcommand, or a mode of one that help lists on its own
// line (run is nil: "serve --http" is serve's flag, not a command).
type command struct {
	name    string
	summary string
	// run gets the arguments after the subcommand name and returns the exit
	// status.
	run func(env *cliEnv, args []string) int
}

// cliEnv is what a command may touch, so tests can run commands in-process.
type cliEnv struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

// commands is every command restls has, as help lists them (sorted by
// name). A new command is one line here and a run function in its own file.
var commands = []command{
	{name: "check", summary: "lint scripts and the service configuration for CI: text, JSON, SARIF or GitHub annotations", run: runCheck},
	{name: "curl", summary: "turn a curl command line into the api.rest.v1 call for a configured serviceId", run: runCurl},
	{name: "dap", summary: "serve the Debug Adapter Protocol on stdio: breakpoints and steps in a script's dry run", run: runDAP},
	{name: "faults", summary: "prove a script's error paths: rerun it with each call failing each way, and say which failures it survives", run: runFaults},
	{name: "fixtures", summary: "generate fixtures for a script's calls from the services' OpenAPI descriptions; write the schema recorded answers show", run: runFixtures},
	{name: "init", summary: "write restls.yaml, the project file every command reads, from the platform layout found", run: runInit},
	{name: "mcp", summary: "serve the Model Context Protocol on stdio for coding agents: services, contracts, checks with fixes, fixtures", run: runMCP},
	{name: "run", summary: "run a script with api.rest.v1 and preview every request and response", run: runRun},
	{name: "serve", summary: "run the language server on stdio (what editors start)", run: runServe},
	{name: "serve --http", summary: "serve the designer page, the hints API and the language server over WebSocket"},
	{name: "services", summary: "print the configured serviceIds (the editor hints map) and configuration diagnostics", run: runServices},
	{name: "services --diff", summary: "compare two configurations (config roots or project environments): what changes for scripts"},
	{name: "test", summary: "run script tests (NAME.test.yaml) against fixtures, offline; JUnit XML for CI", run: runTest},
	{name: "version", summary: "print the version of restls", run: runVersion},
}

// lookup returns the command called name; modes (no run) are not commands.
func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name && c.run != nil {
			return c, true
		}
	}
	return command{}, false
}

func main() {
	env := &cliEnv{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
	os.Exit(runMain(env, os.Args[1:]))
}

func runMain(env *cliEnv, args []string) int {
	if len(args) == 1 && args[0] == isolate.ChildArg {
		// A dry run's child, started by serve (runtime/isolate): one typed
		// request on stdin, one result on stdout, no command line to parse.
		return isolate.ChildMain(env.stdin, env.stdout, env.stderr)
	}
	if len(args) == 0 {
		usage(env.stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c, ok := lookup(args[1]); ok {
				// restls help services --diff: the mode's own help.
				return c.run(env, append(slices.Clone(args[2:]), "-h"))
			}
			unknownCommand(env.stderr, args[1])
			return 2
		}
		usage(env.stdout)
		return 0
	case "--version", "-version":
		// What most tools answer to; -v stays unclaimed: it is the
		// verbose flag of run and test.
		return runVersion(env, args[1:])
	}
	c, ok := lookup(name)
	if !ok {
		unknownCommand(env.stderr, name)
		return 2
	}
	return c.run(env, args[1:])
}

// unknownCommand says so, suggests the nearest command, and gives the
// short usage line rather than the whole list.
func unknownCommand(w io.Writer, name string) {
	msg := fmt.Sprintf("restls: unknown command %q", name)
	if name == "-v" || name == "-V" {
		msg += "; did you mean \"--version\"? (-v is the verbose flag of run and test, after the command)"
	} else if near := config.Nearest(name, commandNames(), 1); len(near) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", near[0])
	}
	fmt.Fprintln(w, msg)
	fmt.Fprintln(w, "Usage: restls <command> [flags]; 'restls help' lists the commands")
}

// commandNames are the names a user may type, for suggestions.
func commandNames() []string {
	names := make([]string, 0, len(commands)+1)
	for _, c := range commands {
		if c.run != nil {
			names = append(names, c.name)
		}
	}
	sort.Strings(names)
	return append(names, "help")
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "restls: language server, dry runs and editor hints for api.rest.v1 scripts")
	fmt.Fprintln(w, "\nUsage: restls <command> [flags]\n\nCommands:")
	list := slices.Clone(commands)
	slices.SortStableFunc(list, func(a, b command) int { return strings.Compare(a.name, b.name) })
	for _, c := range list {
		fmt.Fprintf(w, "  %-16s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "  %-16s %s\n", "help", "show this list, or 'restls help <command>' for one command")
	fmt.Fprintf(w, "\nEvery command takes -h. Documentation: %s\n", docsLocation())
}

// docsOnline is where the documentation is when no copy is at hand.
const docsOnline = "https://github.com/restls/restls/tree/HEAD/docs"

// docsLocation names the documentation the user has: docs/ beside the
// binary (a release archive holds restls and docs/ side by side), or
// beside its directory (bin/restls in a source tree); otherwise online.
func docsLocation() string {
	exe, err := os.Executable()
	if err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		dir := filepath.Dir(exe)
		for _, d := range []string{filepath.Join(dir, "docs"), filepath.Join(filepath.Dir(dir), "docs")} {
			if _, err := os.Stat(filepath.Join(d, "api.md")); err == nil {
				return d + string(filepath.Separator) + " (start with api.md; README.md is beside it)"
			}
		}
	}
	return docsOnline
}

// newFlagSet returns a flag set whose -h output goes to stdout with a usage
// line, and whose errors go to stderr.
func newFlagSet(env *cliEnv, name, synopsis, about string) *flag.FlagSet {
	fs := flag.NewFlagSet("restls "+name, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: restls %s %s\n\n%s\n\nFlags:\n", name, synopsis, strings.TrimSpace(about))
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args; it returns -1 to go on, or the exit status.
// -h prints help on stdout and exits 0; a bad flag exits 2.
func parseFlags(env *cliEnv, fs *flag.FlagSet, args []string) int {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" {
			fs.SetOutput(env.stdout)
			fs.Usage()
			return 0
		}
	}
	// The flag package prints the whole flag list after an error; a slip
	// deserves the error, a suggestion and one usage line instead.
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		flagError(env.stderr, fs, err)
		return 2
	}
	return -1
}

// flagError reports a bad flag, suggesting the nearest defined flag for an
// unknown one.
func flagError(w io.Writer, fs *flag.FlagSet, err error) {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		name = strings.TrimLeft(name, "-")
		var known []string
		fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
		msg = fmt.Sprintf("unknown flag --%s", name)
		if near := config.Nearest(name, known, 1); len(near) > 0 {
			msg += fmt.Sprintf("; did you mean --%s?", near[0])
		} else if pre := prefixed(name, known); pre != "" {
			msg += fmt.Sprintf("; did you mean --%s?", pre)
		}
	}
	fmt.Fprintf(w, "%s: %s\n", fs.Name(), msg)
	cmd := strings.TrimPrefix(fs.Name(), "restls ")
	fmt.Fprintf(w, "Usage: %s [flags]; 'restls help %s' lists the flags\n", fs.Name(), cmd)
}

// prefixed returns the one known name that starts with name, if exactly
// one does (--config for --config-root).
func prefixed(name string, known []string) string {
	found := ""
	for _, k := range known {
		if strings.HasPrefix(k, name) {
			if found != "" {
				return ""
			}
			found = k
		}
	}
	return found
}
