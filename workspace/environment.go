package workspace

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/restls/restls/config"
)

// This file is the one rule that picks a project file's environment, and
// the only reader of the file's environments and defaultEnvironment
// (TestEnvironmentRule fails on a read anywhere else in the module):
//
//	the environment asked for (--env on the command line, the editor's
//	"environment" setting, a designer run's "environment"), else the
//	default (--env given to serve, else the file's defaultEnvironment),
//	else none; a name the file does not define is an error that lists
//	the ones it does.
//
// Surfaces say the error their own way (restls exits 2, the editor warns
// and keeps the default, POST /v1/run answers 400), but never choose.

// UnknownEnvironmentError is the rule's answer to a name the project file
// does not define. It wraps ErrUnknownEnvironment.
type UnknownEnvironmentError struct {
	// Name is the name asked for; File the project file ("" when there
	// is none); Known the environments it defines, sorted.
	Name, File string
	Known      []string
}

func (e *UnknownEnvironmentError) Error() string {
	file := e.File
	if file == "" {
		file = "the project file"
	}
	msg := fmt.Sprintf("%v: %s has no environment %q", ErrUnknownEnvironment, file, e.Name)
	if near := config.Nearest(e.Name, e.Known, 1); len(near) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", near[0])
	}
	if len(e.Known) == 0 {
		return msg + " (it defines no environments)"
	}
	return msg + " (it defines " + strings.Join(e.Known, ", ") + ")"
}

func (e *UnknownEnvironmentError) Unwrap() error { return ErrUnknownEnvironment }

// EnvironmentNames are the environments the file defines, sorted.
func (p *Project) EnvironmentNames() []string {
	return slices.Sorted(maps.Keys(p.environments))
}

// Sources is the configuration of environment env, picked by the rule
// with no default of the caller's ("": the file's defaultEnvironment):
// the top-level keys, each that the environment sets replaced by its.
func (p *Project) Sources(env string) (config.Sources, error) {
	name, err := p.pick(env, "")
	if err != nil {
		return config.Sources{}, err
	}
	if name == "" {
		return p.Config, nil
	}
	return p.Config.Override(p.environments[name]), nil
}

// pick is the rule on a project file: asked, else def, else the file's
// defaultEnvironment, else none.
func (p *Project) pick(asked, def string) (string, error) {
	name := asked
	if name == "" {
		name = def
	}
	if name == "" {
		name = p.defaultEnvironment
	}
	if name == "" {
		return "", nil
	}
	if _, ok := p.environments[name]; !ok {
		return "", &UnknownEnvironmentError{Name: name, File: p.File, Known: p.EnvironmentNames()}
	}
	return name, nil
}

// decodeEnvironments reads environments and defaultEnvironment.
func (p *Project) decodeEnvironments(raw rawProject, dir string, root *yaml.Node, diag diagFunc) {
	if len(raw.Environments) > 0 {
		p.environments = make(map[string]config.Sources, len(raw.Environments))
		for name, e := range raw.Environments {
			p.environments[name] = e.resolve(dir)
		}
	}
	p.defaultEnvironment = raw.DefaultEnvironment
	switch _, ok := p.environments[raw.DefaultEnvironment]; {
	case raw.DefaultEnvironment != "" && !ok:
		n := valueOf(root, "defaultEnvironment")
		msg := fmt.Sprintf("defaultEnvironment %q is not one of the environments", raw.DefaultEnvironment)
		if near := config.Nearest(raw.DefaultEnvironment, p.EnvironmentNames(), 1); len(near) > 0 {
			msg += fmt.Sprintf(": did you mean %q?", near[0])
		} else if len(p.environments) > 0 {
			msg += " (" + strings.Join(p.EnvironmentNames(), ", ") + ")"
		}
		diag(n.Line, n.Column, CodeInvalid, "%s", msg)
	case raw.DefaultEnvironment == "" && len(p.environments) > 0:
		n := keyOf(root, "environments")
		diag(n.Line, n.Column, CodeInvalid, "environments need a defaultEnvironment: name the one used without --env (one of %s)", strings.Join(p.EnvironmentNames(), ", "))
	}
}

// Environments are a project file's environments as one process serves
// them: each its complete sources, and the default. The zero value has
// none (no project file, or one without environments): the rule then
// picks "" and refuses every name.
type Environments struct {
	file    string
	sources map[string]config.Sources
	def     string
}

// NewEnvironments are p's environments (nil: none), each as complete
// makes its sources (the RESTLS_* variables and the flags over the
// file's keys; nil: as the file gives them), with the default env (--env)
// or, when env is "", the file's defaultEnvironment. An env the file does
// not define is the rule's error.
func NewEnvironments(p *Project, env string, complete func(config.Sources) config.Sources) (Environments, error) {
	if p == nil {
		if env != "" {
			return Environments{}, &UnknownEnvironmentError{Name: env}
		}
		return Environments{}, nil
	}
	def, err := p.pick(env, "")
	if err != nil {
		return Environments{}, err
	}
	if complete == nil {
		complete = func(s config.Sources) config.Sources { return s }
	}
	e := Environments{file: p.File, def: def}
	if len(p.environments) > 0 {
		e.sources = make(map[string]config.Sources, len(p.environments))
		for name, s := range p.environments {
			e.sources[name] = complete(p.Config.Override(s))
		}
	}
	return e, nil
}

// Names are the environments, sorted; nil when there are none.
func (e Environments) Names() []string {
	if len(e.sources) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(e.sources))
}

// Default is the environment used when none is asked for, "" for none.
func (e Environments) Default() string { return e.def }

// Pick is the rule: the environment asked for, else the default, else
// none (""); an asked name that is not one of Names is an
// *UnknownEnvironmentError.
func (e Environments) Pick(asked string) (string, error) {
	if asked == "" {
		return e.def, nil
	}
	if _, ok := e.sources[asked]; !ok {
		return "", &UnknownEnvironmentError{Name: asked, File: e.file, Known: e.Names()}
	}
	return asked, nil
}

// Sources are the complete sources of environment name; false when
// there is no such environment.
func (e Environments) Sources(name string) (config.Sources, bool) {
	s, ok := e.sources[name]
	return s, ok
}

// Holds reports whether src are the sources of one of the environments:
// choosing one reads nothing a client named (a designer session, which
// may not name sources, may pick an environment).
func (e Environments) Holds(src config.Sources) bool {
	for _, s := range e.sources {
		if s.Equal(src) {
			return true
		}
	}
	return false
}

// Choice is what the rule picked for a client that has environments of
// its own (an editor's restls.environments): Name, "" for none, and
// Client when the name is one of the client's, whose sources it gives.
type Choice struct {
	Name   string
	Client bool
}

// PickFrom is the rule for a client with environments of its own beside
// the project file's (client, by name; nil for none): the environment
// asked, the client's first, then the file's; else the default. An asked
// name that is neither is an *UnknownEnvironmentError listing both. It
// returns the client's environment when it picked one.
func PickFrom[T any](e Environments, asked string, client map[string]T) (Choice, T, error) {
	var none T
	if asked != "" {
		if c, ok := client[asked]; ok {
			return Choice{Name: asked, Client: true}, c, nil
		}
	}
	name, err := e.Pick(asked)
	if err != nil {
		var unknown *UnknownEnvironmentError
		if errors.As(err, &unknown) && len(client) > 0 {
			unknown.Known = slices.Sorted(maps.Keys(joinNames(e.sources, client)))
		}
		return Choice{}, none, err
	}
	return Choice{Name: name}, none, nil
}

// NamesWith are the environments a client with environments of its own
// may pick, sorted: the file's and the client's; nil when neither has any.
func NamesWith[T any](e Environments, client map[string]T) []string {
	if len(e.sources) == 0 && len(client) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(joinNames(e.sources, client)))
}

func joinNames[T any](file map[string]config.Sources, client map[string]T) map[string]bool {
	all := make(map[string]bool, len(file)+len(client))
	for n := range file {
		all[n] = true
	}
	for n := range client {
		all[n] = true
	}
	return all
}
