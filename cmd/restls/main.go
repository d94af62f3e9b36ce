// Command restls is the language server, dry-run runtime and hints backend
// for platform scripts that call REST services through api.rest.v1.
//
// It is the only package that wires config, hints, lsp and runtime
// together.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one subcommand.
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

// commands is filled by each command's file in init, so commands can be
// added without editing a central list.
var commands = map[string]command{}

func register(c command) { commands[c.name] = c }

func main() {
	env := &cliEnv{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
	os.Exit(runMain(env, os.Args[1:]))
}

func runMain(env *cliEnv, args []string) int {
	if len(args) == 0 {
		usage(env.stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				return c.run(env, []string{"-h"})
			}
			fmt.Fprintf(env.stderr, "restls: unknown command %q\n", args[1])
			return 2
		}
		usage(env.stdout)
		return 0
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(env.stderr, "restls: unknown command %q; run 'restls help' for the list\n", name)
		return 2
	}
	return c.run(env, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "restls: language server, dry runs and editor hints for api.rest.v1 scripts")
	fmt.Fprintln(w, "\nUsage: restls <command> [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "  help       show this list, or 'restls help <command>' for one command")
	fmt.Fprintln(w, "\nEvery command takes -h. Documentation: docs/ in the source tree.")
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
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	return -1
}
