package workspace

import (
	"context"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/jslevel"
	"github.com/restls/restls/openapi"
)

// SessionOptions configure a Session.
type SessionOptions struct {
	// Sources are the default environment's configuration (the flags over
	// the project file's); Load reads sources (nil: config.Load).
	Sources config.Sources
	Load    func(config.Sources) *config.Snapshot
	// Environments are the project file's, with the default the rule
	// picks when none is asked for; the zero value has none.
	Environments Environments
	// Kinds is the kind map.
	Kinds config.KindMap
	// APIs are the API descriptions attached.
	APIs []APISource
	// Recorded lets scripts see the recorded answers beside them.
	Recorded bool
	// TimeLimits are the project file's timeLimits: per script kind, the
	// static worst-case time above which a script gets worst-case-time.
	TimeLimits map[config.Kind]time.Duration
	// EngineLevel is the project file's engine (Project.EngineLevel),
	// given to every snapshot.
	EngineLevel jslevel.Level
	// DescriptionDelay is how long first description loads wait
	// (FirstLoadDelay in an editor; 0 for a command).
	DescriptionDelay time.Duration
	// IndexMaxBytes is the project indexes' budget
	// (index.Options.MaxBytes); index.DefaultMaxBytes when 0.
	IndexMaxBytes int64
	// Logger may be nil.
	Logger *zap.Logger
}

// Session is everything live of one project, one per process (gopls'
// cache.Session): the registry of each environment, the API descriptions
// and the answers' schemas with their attachments, the recorded answers
// beside scripts, the text of open documents (overlay.go) and the project
// indexes (project_index.go). Surfaces
// (the language server, the designer's /v1, restls check) take immutable
// Snapshots of it and subscribe to what changes (OnDescriptionsLoaded,
// OnAnswersLoaded, OnReload). It is safe for concurrent use.
type Session struct {
	opts         SessionOptions
	log          *zap.Logger
	registry     *Registry // the default environment's
	descriptions *Descriptions
	attach       Attachments
	recorded     Recorded
	// answers are the descriptions with their answers' schemas, for the
	// fixture and run answer checks, loaded when first asked.
	answers       *Descriptions
	answersAttach Attachments

	overlays overlays
	indexes  projectIndexes // project_index.go

	mu   sync.Mutex
	envs map[string]*Registry // the other environments', made when first asked
	// hooks are the subscribers' functions, called in order.
	onDescriptions, onAnswers []func()
	onReload                  []func(Reload)
}

// Reload says what a reload read again, to OnReload's subscribers.
type Reload struct {
	// FromFiles: the default environment's configuration files changed
	// on disk and only its registry was read again; otherwise Reload was
	// asked for (restls.reload, SIGHUP, a registry backend's change) and
	// everything was, a surface's own registries included.
	FromFiles bool
}

// NewSession returns the session of o. It reads nothing until asked.
func NewSession(o SessionOptions) *Session {
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.Load == nil {
		o.Load = config.Load
	}
	s := &Session{opts: o, log: o.Logger, registry: NewRegistry(o.Sources, o.Load, o.Logger),
		descriptions: NewDescriptions(o.Logger, o.DescriptionDelay), answers: NewAnswerDescriptions(o.Logger, o.DescriptionDelay)}
	s.recorded.Allowed = o.Recorded
	s.descriptions.OnLoaded(func() { s.call(&s.onDescriptions) })
	s.answers.OnLoaded(func() { s.call(&s.onAnswers) })
	return s
}

// Close stops the session's background work, the loads of API
// descriptions and of answers' schemas, and returns once it has ended
// (nothing of it logs or calls a subscriber after), or when ctx ends
// first. The owner of the session calls it when done with it.
func (s *Session) Close(ctx context.Context) error {
	return errors.Join(s.descriptions.Close(ctx), s.answers.Close(ctx))
}

func (s *Session) call(hooks *[]func()) {
	s.mu.Lock()
	list := slices.Clone(*hooks)
	s.mu.Unlock()
	for _, f := range list {
		f()
	}
}

// OnDescriptionsLoaded adds f to what is called after each completed load
// of an API description (the language server diagnoses again).
func (s *Session) OnDescriptionsLoaded(f func()) {
	s.mu.Lock()
	s.onDescriptions = append(s.onDescriptions, f)
	s.mu.Unlock()
}

// OnAnswersLoaded adds f to what is called after each completed load of
// a description with its answers' schemas (fixture checks change).
func (s *Session) OnAnswersLoaded(f func()) {
	s.mu.Lock()
	s.onAnswers = append(s.onAnswers, f)
	s.mu.Unlock()
}

// OnReload adds f to what is called after a registry was read again.
func (s *Session) OnReload(f func(Reload)) {
	s.mu.Lock()
	s.onReload = append(s.onReload, f)
	s.mu.Unlock()
}

func (s *Session) reloaded(r Reload) {
	s.mu.Lock()
	list := slices.Clone(s.onReload)
	s.mu.Unlock()
	for _, f := range list {
		f(r)
	}
}

// Load is how the session reads sources.
func (s *Session) Load(src config.Sources) *config.Snapshot { return s.opts.Load(src) }

// Sources are the default environment's sources.
func (s *Session) Sources() config.Sources { return s.opts.Sources }

// Kinds is the kind map (the project file's scriptKinds, under --kind-map).
func (s *Session) Kinds() config.KindMap { return s.opts.Kinds }

// TimeLimits are the project file's timeLimits (nil: none).
func (s *Session) TimeLimits() map[config.Kind]time.Duration { return s.opts.TimeLimits }

// APIs are the session's API descriptions (--openapi and the project
// file's openapi).
func (s *Session) APIs() []APISource { return s.opts.APIs }

// Registry is the default environment's registry.
func (s *Session) Registry() *Registry { return s.registry }

// Descriptions is the store of API descriptions every surface reads.
func (s *Session) Descriptions() *Descriptions { return s.descriptions }

// AnswerDescriptions is the store of descriptions with their answers'
// schemas, for fixture and answer checks.
func (s *Session) AnswerDescriptions() *Descriptions { return s.answers }

// Environments are the project file's environments, sorted, and the one
// used when none is asked for; nil and "" when the file defines none.
func (s *Session) Environments() (names []string, current string) {
	return s.opts.Environments.Names(), s.opts.Environments.Default()
}

// EnvironmentSet are the project file's environments, for the rule's
// forms that take a client's own (PickFrom, NamesWith).
func (s *Session) EnvironmentSet() Environments { return s.opts.Environments }

// Environment is the environment asked (the rule: Environments.Pick).
func (s *Session) Environment(asked string) (string, error) { return s.opts.Environments.Pick(asked) }

// EnvironmentSources are the sources of environment name as the rule
// picked it: the default's are the session's Sources.
func (s *Session) EnvironmentSources(name string) config.Sources {
	if src, ok := s.opts.Environments.Sources(name); ok && name != s.opts.Environments.Default() {
		return src
	}
	return s.opts.Sources
}

// IsEnvironment reports whether src are one of the project file's
// environments: choosing one reads nothing a client named.
func (s *Session) IsEnvironment(src config.Sources) bool { return s.opts.Environments.Holds(src) }

// EnvironmentRegistry is the registry of environment name as the rule
// picked it (the default's for the default), made on first use and kept.
func (s *Session) EnvironmentRegistry(name string) *Registry {
	if name == s.opts.Environments.Default() {
		return s.registry
	}
	src, ok := s.opts.Environments.Sources(name)
	if !ok {
		return s.registry
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.envs == nil {
		s.envs = map[string]*Registry{}
	}
	reg := s.envs[name]
	if reg == nil {
		reg = NewRegistry(src, s.opts.Load, s.log)
		s.envs[name] = reg
	}
	return reg
}

// EnvironmentSnapshot is the current configuration of the environment
// asked ("": the default) and its name, or the rule's error. Another
// environment than the default is read again when its files changed:
// runs are rare next to keystrokes, and have no watcher of their own.
func (s *Session) EnvironmentSnapshot(asked string) (*config.Snapshot, string, error) {
	name, err := s.Environment(asked)
	if err != nil {
		return nil, "", err
	}
	reg := s.EnvironmentRegistry(name)
	if reg != s.registry {
		reg.ReloadIfChanged()
	}
	return reg.Get(), name, nil
}

// SnapshotIn is the snapshot of the environment asked ("" the default,
// as Snapshot), picked by the one rule: what a surface that names an
// environment per request (restls mcp, restls dap) runs against.
func (s *Session) SnapshotIn(asked string) (Snapshot, error) {
	snap := s.Snapshot()
	if asked == "" {
		return snap, nil
	}
	cfg, name, err := s.EnvironmentSnapshot(asked)
	if err != nil {
		return Snapshot{}, err
	}
	snap.Config, snap.Environment = cfg, name
	return snap, nil
}

// Snapshot is the default environment as it is now.
func (s *Session) Snapshot() Snapshot {
	snap := NewSnapshot(s.registry.Get(), s.opts.Kinds, s.opts.APIs, s.descriptions, &s.attach, &s.recorded).
		WithAnswers(s.answers, &s.answersAttach)
	snap.Environment = s.opts.Environments.Default()
	snap.TimeLimits = s.opts.TimeLimits
	snap.EngineLevel = s.opts.EngineLevel
	return snap
}

// EngineLevel is the JavaScript level the platform's engine accepts, for
// a surface that makes its own snapshots (the language server's
// sessions, the designer's runs).
func (s *Session) EngineLevel() jslevel.Level { return s.opts.EngineLevel }

// Reload reads every registry and description again, then tells the
// subscribers (OnReload, FromFiles false).
func (s *Session) Reload() {
	s.registry.Reload()
	s.descriptions.Reload()
	s.mu.Lock()
	envs := slices.Collect(maps.Values(s.envs))
	s.mu.Unlock()
	for _, reg := range envs {
		reg.Reload()
	}
	s.recorded.Forget()
	s.reloaded(Reload{})
}

// ReloadDefault reads the default environment's registry again (a client
// said its files changed) and tells the subscribers.
func (s *Session) ReloadDefault() {
	s.registry.Reload()
	s.recorded.Forget()
	s.reloaded(Reload{FromFiles: true})
}

// ReloadIfChanged reads the default environment's registry again when
// one of its files changed on disk, tells the subscribers and reports
// whether it did.
func (s *Session) ReloadIfChanged() bool {
	if !s.registry.ReloadIfChanged() {
		return false
	}
	s.log.Info("configuration files changed; reloaded", zap.Strings("files", s.registry.Files()))
	s.recorded.Forget()
	s.reloaded(Reload{FromFiles: true})
	return true
}

// WaitDescriptions loads every description the scripts at paths see and
// returns once each has loaded or failed, or ctx ends: a command that
// answers once (restls check) waits for what an editor shows when ready.
func (s *Session) WaitDescriptions(ctx context.Context, paths []string) error {
	snap := NewSnapshot(nil, nil, s.opts.APIs, s.descriptions, &s.attach, &s.recorded)
	var all []APISource
	seen := map[string]bool{}
	add := func(src []APISource) {
		for _, a := range src {
			if !seen[a.key()] {
				seen[a.key()] = true
				all = append(all, a)
			}
		}
	}
	add(s.opts.APIs)
	// What a script sees beside the project's descriptions are the
	// recorded answers in its directory (Recorded.Beside): one script per
	// directory is asked. restls check asks for every script it checks,
	// 10,000 of them in 100 directories in make bench-oxlint.
	dirs := map[string]bool{}
	for _, p := range paths {
		if dir := filepath.Dir(p); !dirs[dir] {
			dirs[dir] = true
			add(snap.APISources(p))
		}
	}
	return s.descriptions.Wait(ctx, all)
}

// Listed is what a walk listed in the directory dir (absolute): the
// recorded answers beside its scripts are taken from these names, not
// from a second listing (Recorded.Listed).
func (s *Session) Listed(dir string, names []string) { s.recorded.Listed(dir, names) }

// DescriptionProblems are the problems of the local description files the
// session has loaded for src (WaitDescriptions first).
func (s *Session) DescriptionProblems(src []APISource) []DescriptionProblem {
	docs, _ := s.descriptions.Docs(src)
	return DescriptionProblems(docs)
}

// WaitAnswers loads the session's descriptions with their answers'
// schemas and returns once each has loaded or failed, or ctx ends.
func (s *Session) WaitAnswers(ctx context.Context) error {
	return s.answers.Wait(ctx, s.opts.APIs)
}

// AnswerAPIs are the descriptions of reg's services with their answers'
// schemas, as loaded so far (WaitAnswers first): what fixture files are
// checked against (CheckFixtures). Recorded answers are none of them.
func (s *Session) AnswerAPIs(reg *config.Registry) *openapi.Set {
	if reg == nil || len(s.opts.APIs) == 0 {
		return nil
	}
	return s.answersAttach.Set(s.answers, s.opts.APIs, reg)
}

// APIServices are the serviceIds of reg whose API description (the
// session's APIs) is loaded, nil when none is, and the number of
// description loads completed so far: the answer changes only when reg or
// that number does. It starts the loads not started yet and never waits.
func (s *Session) APIServices(reg *config.Registry) (ids map[string]bool, gen int64) {
	if len(s.opts.APIs) == 0 || reg == nil {
		return nil, 0
	}
	set, gen := s.attach.SetGen(s.descriptions, s.opts.APIs, reg)
	list := set.IDs()
	if len(list) == 0 {
		return nil, gen
	}
	ids = make(map[string]bool, len(list))
	for _, id := range list {
		ids[id] = true
	}
	return ids, gen
}

// AnswersWait bounds how long a run's answer check waits for the
// descriptions (with their answers' schemas) to load.
const AnswersWait = 10 * time.Second
