package main

import (
	"flag"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/restls/restls/check"
	"github.com/restls/restls/config"
	"github.com/restls/restls/faults"
	"github.com/restls/restls/jslevel"
	"github.com/restls/restls/workspace"
)

// projectFlags are --project and --env, and the project file they lead
// to (docs/configuration.md, "restls.yaml").
type projectFlags struct {
	file, envName string
	// start is where the file is looked for when --project is not given:
	// the script, the first PATH, or (empty) the working directory.
	start string
	// project is the file in force (nil: none), sources its
	// environment's configuration.
	project *workspace.Project
	psrc    config.Sources
	// envs are the file's environments, each as --env NAME would read
	// it (the file's keys, then RESTLS_* variables, then the flags),
	// with the default --env or the file's picked by the rule.
	envs workspace.Environments
}

func (c *configFlags) register(fs *flag.FlagSet) {
	registerSources(fs, &c.flags, &c.args)
	fs.StringVar(&c.file, "project", "", "the project `file` (default: the nearest "+workspace.FileName+" from the script, PATH or working directory up to the repository root); its keys are the defaults the other flags override")
	fs.StringVar(&c.envName, "env", "", "the environment of the project file to use (`name`; default its defaultEnvironment)")
}

// fromProject is the configuration of the project file in force.
func (c *configFlags) fromProject() config.Sources { return c.psrc }

// loadProject finds and loads the project file for command cmd, printing
// its diagnostics; false when it cannot be used (the command exits 2).
func (c *configFlags) loadProject(cmd string) bool {
	fail := func(format string, a ...any) bool {
		fmt.Fprintf(c.env.stderr, "restls %s: "+format+"\n", append([]any{cmd}, a...)...)
		return false
	}
	file := c.file
	if file == "" {
		file = workspace.FindProject(c.start)
	}
	if file == "" {
		if c.envName != "" {
			return fail("--env %s needs a project file: no %s was found from %s up to the repository root; name one with --project, or write one with restls init", c.envName, workspace.FileName, orDot(c.start))
		}
		return true
	}
	p, err := workspace.LoadProject(file)
	if err != nil {
		what := "the project file"
		if c.file != "" {
			what = "--project"
		}
		return fail("cannot read %s: %v", what, err)
	}
	for _, d := range p.Diagnostics {
		fmt.Fprintf(c.env.stderr, "%s [%s]\n", d, d.Code)
	}
	if p.HasErrors() {
		if cmd == "serve" && c.file == "" && c.envName == "" {
			// The language server an editor starts in a folder whose
			// restls.yaml has a typo keeps serving (degrade, never fail),
			// as it would without the file; one named on purpose stops it.
			fmt.Fprintf(c.env.stderr, "restls serve: %s has errors (above): serving without it; fix them and restart the server\n", p.File)
			return true
		}
		return fail("%s has errors (above): fix them, or name another file with --project", p.File)
	}
	envs, err := workspace.NewEnvironments(p, c.envName, func(src config.Sources) config.Sources {
		return src.Override(config.FromEnv(c.env.getenv)).Override(c.flags)
	})
	if err != nil {
		return fail("--env: %v", err)
	}
	s, err := p.Sources(envs.Default())
	if err != nil {
		return fail("--env: %v", err)
	}
	if s.RegistryURL != "" && cmd != "serve" {
		return fail("%s: registryUrl is read by serve only; restls %s reads configuration files: name them (configRoot, ...) in the file, or pick an environment that does with --env", p.File, cmd)
	}
	c.project, c.psrc, c.envs = p, s, envs
	return true
}

func orDot(s string) string {
	if s == "" {
		return "."
	}
	return s
}

// checkDefaults applies the file's check settings under the flags of
// restls check: --include and --exclude replace the file's lists,
// --strict its strict, and --kind-map globs come before its scriptKinds.
func (c *configFlags) checkDefaults(fs *flag.FlagSet, include, exclude *stringList, strict *bool, kinds *kindMapFlag) {
	p := c.project
	if p == nil {
		return
	}
	if len(*include) == 0 {
		*include = p.Check.Include
	}
	if len(*exclude) == 0 {
		*exclude = p.Check.Exclude
	}
	if p.Check.Strict != nil && !flagGiven(fs, "strict") {
		*strict = *p.Check.Strict
	}
	kinds.m = append(kinds.m, p.ScriptKinds...)
}

// disabled drops the findings whose codes the file's check.disable lists.
func (c *configFlags) disabled(rep *check.Report) {
	if c.project == nil || len(c.project.Check.Disable) == 0 {
		return
	}
	rep.Findings = slices.DeleteFunc(rep.Findings, func(f check.Finding) bool { return slices.Contains(c.project.Check.Disable, f.Code) })
}

// openAPI is --openapi after the file's openapi: a serviceId the flags
// name keeps only the flags' description.
func (c *configFlags) openAPI(flags openAPIFlags) openAPIFlags {
	if c.project == nil || len(c.project.OpenAPI) == 0 {
		return flags
	}
	var out openAPIFlags
	for _, id := range slices.Sorted(maps.Keys(c.project.OpenAPI)) {
		if !slices.ContainsFunc(flags, func(s workspace.APISource) bool { return s.ServiceID == id }) {
			out = append(out, workspace.APISource{ServiceID: id, Location: c.project.OpenAPI[id]})
		}
	}
	return append(out, flags...)
}

// projectFile is the path of the project file in force, "" for none.
func (c *configFlags) projectFile() string {
	if c.project == nil {
		return ""
	}
	if abs, err := filepath.Abs(c.project.File); err == nil {
		return abs
	}
	return c.project.File
}

// sessionOptions are the project's facts every command's workspace
// session starts from, in one place: the sources, environments and kind
// map of the flags over the project file, its time limits and engine
// level, and the descriptions apis (already through openAPI). Each
// command adds only what is its own (a logger, recorded answers, serve's
// loader and first-load delay).
func (c *configFlags) sessionOptions(apis []workspace.APISource) workspace.SessionOptions {
	return workspace.SessionOptions{Sources: c.sources(), Environments: c.envs, Kinds: c.projectKinds(), APIs: apis,
		TimeLimits: c.timeLimits(), EngineLevel: c.engineLevel()}
}

// session is the one workspace session of a one-shot command (restls
// run, restls faults): a run's snapshot comes from it, so its answers
// are checked as the editor's and the designer's are.
func (c *configFlags) session(apis []workspace.APISource) *workspace.Session {
	return workspace.NewSession(c.sessionOptions(apis))
}

// faultsFail is the verdicts of the fault explorer that fail a script:
// --fail when given (flag, its value), else the file's faults.fail (nil:
// the explorer's default). A bad --fail is the error; the file's list was
// checked when the file was read.
func (c *configFlags) faultsFail(flag string) ([]faults.Verdict, error) {
	if flag != "" {
		v, err := faults.ParseVerdicts(strings.Split(flag, ","))
		if err != nil {
			return nil, fmt.Errorf("--fail: %w", err)
		}
		return v, nil
	}
	if c.project == nil || c.project.FaultsFail == nil {
		return nil, nil
	}
	v, _ := faults.ParseVerdicts(c.project.FaultsFail)
	return v, nil
}

// timeLimits is the file's timeLimits (nil without a file).
func (c *configFlags) timeLimits() map[config.Kind]time.Duration {
	if c.project == nil {
		return nil
	}
	return c.project.TimeLimits
}

// engineLevel is the file's engine, the JavaScript level the platform
// accepts (jslevel.Latest without a file).
func (c *configFlags) engineLevel() jslevel.Level {
	if c.project == nil {
		return jslevel.Latest
	}
	return c.project.EngineLevel
}

// projectKinds is the file's scriptKinds, the language server's default.
func (c *configFlags) projectKinds() config.KindMap {
	if c.project == nil {
		return nil
	}
	return c.project.ScriptKinds
}
