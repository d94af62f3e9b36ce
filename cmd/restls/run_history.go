package main

import (
	"fmt"
	"path/filepath"

	"github.com/restls/restls/input"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/dryrun/diff"
	"github.com/restls/restls/runtime/dryrun/history"
)

// runHistory does restls run's --diff-with (before the run is kept, so
// that "last" is the run before this one) and --save. It reports false
// when the run could not be kept; a diff that cannot be made is said on
// stderr and changes nothing (a diff never changes the exit status).
func runHistory(env *cliEnv, res *dryrun.Result, out runOutput) bool {
	key, err := filepath.Abs(out.script)
	if err != nil {
		fmt.Fprintf(env.stderr, "restls run: %v\n", err)
		return false
	}
	var store *history.Dir
	dir, dirErr := historyDir(env)
	if dirErr == nil {
		store = &history.Dir{Root: dir}
	}
	if out.diffWith != "" {
		old, name, err := diffBase(store, dirErr, key, out.diffWith)
		if err != nil {
			fmt.Fprintf(env.stderr, "restls run: --diff-with %s: %v\n", input.Printable(out.diffWith), err)
		} else {
			fmt.Fprintln(env.stdout)
			if err := diff.Text(env.stdout, diff.Compare(old.Run, res), name, "this run"); err != nil {
				return false
			}
		}
	}
	if !out.save {
		return true
	}
	if dirErr != nil {
		fmt.Fprintf(env.stderr, "restls run: --save: no run history: %v\n", dirErr)
		return false
	}
	if err := store.Add(history.NewEntry(key, history.SourceCLI, res).WithInput(out.input)); err != nil {
		fmt.Fprintf(env.stderr, "restls run: --save: %v\n", err)
		return false
	}
	return true
}

// diffBase is the run --diff-with names and how the diff calls it.
func diffBase(store *history.Dir, dirErr error, key, with string) (*history.Entry, string, error) {
	if with == "last" {
		if dirErr != nil {
			return nil, "", fmt.Errorf("no run history: %w", dirErr)
		}
		runs, err := store.Last(key, 1)
		if err != nil {
			return nil, "", err
		}
		if len(runs) == 0 {
			return nil, "", fmt.Errorf("no run of %s is kept yet: run it with --save (or from the editor) first", key)
		}
		return runs[0], "the last run (" + runs[0].Time.Local().Format("2006-01-02 15:04:05") + ")", nil
	}
	data, err := input.ReadFile(with, input.Input)
	if err != nil {
		return nil, "", fmt.Errorf("%s", readErr(with, err))
	}
	e, err := history.Decode(data)
	if err != nil {
		return nil, "", fmt.Errorf("not a history entry nor restls run --json output: %v", err)
	}
	return e, with, nil
}
