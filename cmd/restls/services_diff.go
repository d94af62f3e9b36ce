package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/restls/restls/config"
)

// restls services --diff A B: what changes for scripts between two
// configurations, each a config root or an environment of the project
// file (issue 26).

// serviceDiff is one difference of one kind (config.DiffRegistries,
// which restls check --since asks too).
type serviceDiff = config.ServiceDiff

type kindDiff struct {
	Kind        config.Kind   `json:"kind"`
	Differences []serviceDiff `json:"differences"`
}

type servicesDiffJSON struct {
	A      string     `json:"a"`
	B      string     `json:"b"`
	Kinds  []kindDiff `json:"kinds"`
	Differ bool       `json:"differ"`
}

// runServicesDiff is restls services --diff A B.
func runServicesDiff(env *cliEnv, args []string) int {
	fs := newFlagSet(env, "services --diff", "A B [--kind K] [--json] [--project FILE]", `
Compares two service configurations as the platform would load them, each
a config root directory or an environment of the project file (restls.yaml):
serviceIds usable on one side only (or unusable there), resolved url host or
path, plain http on one side, authorization kind, and the timeouts. Never a
credential.

Exit status: 0 when they do not differ; 1 when they do; 2 for usage errors.`)
	kindName := fs.String("kind", "", "compare only this script `kind` (default: all three)")
	asJSON := fs.Bool("json", false, "print one JSON object: a, b, kinds (each with its differences), differ")
	project := fs.String("project", "", "the project `file` whose environments A and B may name (default: the nearest "+"restls.yaml)")
	fs.Bool("diff", true, "compare two configurations (this mode)")
	// The flag package stops at the first operand: read flags and
	// operands in any order.
	var sides []string
	rest := args
	for {
		if rc := parseFlags(env, fs, rest); rc >= 0 {
			return rc
		}
		if fs.NArg() == 0 {
			break
		}
		sides = append(sides, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(sides) != 2 {
		fmt.Fprintf(env.stderr, "restls services --diff: want two configurations (config roots or environments of the project file), got %d\n", len(sides))
		return 2
	}
	kinds := config.Kinds
	if *kindName != "" {
		k, err := config.ParseKind(*kindName)
		if err != nil {
			fmt.Fprintf(env.stderr, "restls services --diff: %v\n", err)
			return 2
		}
		kinds = []config.Kind{k}
	}
	var snaps [2]*config.Snapshot
	for i, side := range sides {
		src, ok := diffSources(env, *project, side)
		if !ok {
			return 2
		}
		snaps[i] = config.Load(src)
	}
	out := servicesDiffJSON{A: sides[0], B: sides[1], Kinds: []kindDiff{}}
	for _, k := range kinds {
		d := config.DiffRegistries(snaps[0].For(k), snaps[1].For(k))
		out.Kinds = append(out.Kinds, kindDiff{Kind: k, Differences: d})
		out.Differ = out.Differ || len(d) > 0
	}
	if *asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(out)
	} else {
		printServicesDiff(env, out)
	}
	if out.Differ {
		return 1
	}
	return 0
}

// diffSources is the configuration one side names: a directory is a
// config root, anything else an environment of the project file.
func diffSources(env *cliEnv, project, side string) (config.Sources, bool) {
	if fi, err := os.Stat(side); err == nil && fi.IsDir() {
		return config.Sources{ConfigRoot: side}, true
	}
	cf := configFlags{env: env}
	cf.file, cf.envName = project, side
	if !cf.loadProject("services --diff") {
		return config.Sources{}, false
	}
	if cf.project == nil {
		fmt.Fprintf(env.stderr, "restls services --diff: %q is not a directory, and no project file names environments: give two config roots, or environments of restls.yaml (--project)\n", side)
		return config.Sources{}, false
	}
	return cf.fromProject(), true
}

// printServicesDiff prints the differences as text: per kind, one line
// per difference, then a count.
func printServicesDiff(env *cliEnv, d servicesDiffJSON) {
	n := 0
	w := env.stdout
	fmt.Fprintf(w, "A: %s\nB: %s\n", d.A, d.B)
	for _, k := range d.Kinds {
		if len(k.Differences) == 0 {
			fmt.Fprintf(w, "\n%s: no difference\n", k.Kind)
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", k.Kind)
		for _, x := range k.Differences {
			n++
			switch x.What {
			case "timeouts":
				fmt.Fprintf(w, "  timeouts: %s -> %s\n", x.A, x.B)
			case "http":
				side := "A"
				if x.B == "http" {
					side = "B"
				}
				fmt.Fprintf(w, "  %s: plain http in %s only (%s -> %s)\n", x.ServiceID, side, x.A, x.B)
			default:
				fmt.Fprintf(w, "  %s: %s: %s -> %s\n", x.ServiceID, x.What, x.A, x.B)
			}
		}
	}
	if n == 0 {
		fmt.Fprintln(w, "\nthe configurations do not differ")
		return
	}
	fmt.Fprintf(w, "\n%d differences\n", n)
}

// wantsDiff reports whether restls services was given --diff.
func wantsDiff(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--diff" || a == "-diff" || strings.HasPrefix(a, "--diff=") || strings.HasPrefix(a, "-diff=") {
			return true
		}
	}
	return false
}
