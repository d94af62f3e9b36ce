package main

import (
	"fmt"

	"github.com/restls/restls/workspace"
)

func runInit(env *cliEnv, args []string) int {
	fs := newFlagSet(env, "init", "[DIR]", `
Writes DIR/restls.yaml (default: the current directory), the project file
every restls command and the editor read, from the platform layout found
in DIR or below it: a platform directory (script-code-config/
script-service-api.xml, script-handler-config/script-handler-api.xml),
else the configuration files found one by one (application.yml or
.properties, script-service-api.xml, script-handler-api.xml, config.xml);
directories named tasks or validation* become scriptKinds. Every key is
commented; docs/configuration.md has the rest.

Never overwrites: an existing restls.yaml is an error.

Exit status: 0 when the file is written, 2 for usage errors, a DIR that
is not a directory, or an existing restls.yaml.`)
	if rc := parseFlags(env, fs, args); rc >= 0 {
		return rc
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(env.stderr, "restls init: expected at most one DIR, got %d arguments\n", fs.NArg())
		return 2
	}
	dir := "."
	if fs.NArg() == 1 {
		dir = fs.Arg(0)
	}
	file, err := workspace.WriteInit(dir)
	if err != nil {
		fmt.Fprintf(env.stderr, "restls init: %v\n", err)
		return 2
	}
	fmt.Fprintf(env.stdout, "wrote %s: read it, then run restls check\n", file)
	return 0
}
