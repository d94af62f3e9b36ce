package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/restls/restls/config"
)

// configFlags binds the registry flags and the project flags
// (project.go), and reads RESTLS_* from env.
type configFlags struct {
	// flags are the configuration flags given (registerSources), args
	// the same flags as they were given, in order (debugChildren passes
	// them on).
	flags config.Sources
	args  []string
	env   *cliEnv
	projectFlags
}

// sources are the project file's (its environment's) configuration,
// overridden key by key by RESTLS_* variables, then by the flags.
func (c *configFlags) sources() config.Sources {
	return c.fromProject().Override(config.FromEnv(c.env.getenv)).Override(c.flags)
}

// rootMissing loads the project file (project.go) and reports, for
// command cmd, its errors, and a config root named by a flag, by
// RESTLS_CONFIG_ROOT or by the file that is not a directory: a usage
// error, since a registry read from nothing would only hide the typo.
func (c *configFlags) rootMissing(cmd string) bool {
	if !c.loadProject(cmd) {
		return true
	}
	if err := c.sources().CheckRoot(); err != nil {
		fmt.Fprintf(c.env.stderr, "restls %s: %v\n", cmd, err)
		return true
	}
	return false
}

type servicesJSON struct {
	Kind        config.Kind                  `json:"kind"`
	Services    map[string]config.HintsEntry `json:"services"`
	Timeouts    config.Timeouts              `json:"timeouts"`
	Diagnostics []config.Diagnostic          `json:"diagnostics"`
}

func runServices(env *cliEnv, args []string) int {
	if wantsDiff(args) {
		return runServicesDiff(env, args) // services_diff.go
	}
	fs := newFlagSet(env, "services", "[--kind K] [--json] [--strict] [config flags] [--probe [ID...]] | --diff A B", `
Loads the service configuration the platform would load at startup and
prints, for one script kind, each usable serviceId with its resolved url and
description (never a credential), then every configuration problem as
file:line:col: severity: message.

With --probe it checks instead that each service (or each ID given) can
be called from here: a fresh OAuth token when it has one, then HEAD (GET
when HEAD is refused) of its url, with DNS, connect, TLS, token and HTTP
outcomes and timings.

With --diff A B it compares two configurations instead, each a config root
or an environment of the project file: what changes for scripts between
them ('restls help services --diff' for its flags).

Exit status: 0; 1 with --strict when any error diagnostic exists, and with
--probe when any probe fails; 2 for usage errors, and when a named config
root is not a directory.`)
	kindName := fs.String("kind", string(config.ScriptService), "script `kind` whose registry to print: scriptService, scriptTask or validationScript")
	asJSON := fs.Bool("json", false, "print one JSON object: kind, services, timeouts, diagnostics")
	strict := fs.Bool("strict", false, "exit 1 when any error diagnostic exists")
	probe := fs.Bool("probe", false, "check that each service (or each serviceId given as an argument) answers; exit 1 when any fails")
	cf := configFlags{env: env}
	cf.register(fs)
	if rc := parseFlags(env, fs, args); rc >= 0 {
		return rc
	}
	if fs.NArg() > 0 && !*probe {
		fmt.Fprintf(env.stderr, "restls services: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	kind, err := config.ParseKind(*kindName)
	if err != nil {
		fmt.Fprintf(env.stderr, "restls services: %v\n", err)
		return 2
	}
	if cf.rootMissing("services") {
		return 2
	}
	// The registry of the environment the rule picked, from the one
	// session, as every command reads it.
	reg := cf.session(nil).Snapshot().Config.For(kind)
	if *probe {
		return probeServices(env, reg, fs.Args(), *asJSON)
	}
	diags := reg.Diagnostics
	if diags == nil {
		diags = []config.Diagnostic{}
	}
	if *asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(servicesJSON{Kind: kind, Services: reg.HintsMap(), Timeouts: reg.Timeouts, Diagnostics: diags}); err != nil {
			fmt.Fprintf(env.stderr, "restls services: %v\n", err)
			return 1
		}
	} else {
		printServices(env, reg)
	}
	if *strict {
		for _, d := range diags {
			if d.Severity == config.SeverityError {
				return 1
			}
		}
	}
	return 0
}

func printServices(env *cliEnv, reg *config.Registry) {
	w := env.stdout
	fmt.Fprintf(w, "%s for %s (connection timeout %d ms, max %d; read timeout %d ms, max %d)\n\n",
		count(reg.Len(), "service", "services"), reg.Kind, reg.Timeouts.Connection.Default, reg.Timeouts.Connection.Maximum,
		reg.Timeouts.Read.Default, reg.Timeouts.Read.Maximum)
	if reg.Len() > 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SERVICEID\tURL\tAUTH\tDESCRIPTION")
		for _, id := range reg.IDs() {
			s, _ := reg.Service(id)
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", id, s.URL, reg.AuthSummary(s), s.Description)
		}
		_ = tw.Flush()
	}
	if len(reg.Diagnostics) > 0 {
		fmt.Fprintf(w, "\n%s:\n", count(len(reg.Diagnostics), "diagnostic", "diagnostics"))
		for _, d := range reg.Diagnostics {
			fmt.Fprintln(w, d.String())
		}
	}
}

// count is n and the noun for it: "1 diagnostic", "2 diagnostics".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
