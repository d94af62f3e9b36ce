package workspace

import (
	"context"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/restls/restls/config"
	"github.com/restls/restls/openapi"
)

// Snapshot is a project as one request sees it, immutable: the registry
// per kind, the kind map, the API descriptions and the recorded answers
// beside scripts. The language server takes one per request (its
// session's settings choose the parts), restls check one per run; both
// ask it the same questions, so they give the same answers.
type Snapshot struct {
	// Config is the loaded configuration.
	Config *config.Snapshot
	// Kinds maps globs to kinds after a script's directive.
	Kinds config.KindMap
	// APIs are the descriptions attached by serviceId or by servers.
	APIs []APISource
	// Environment names the project file's environment Config was read
	// for, "" for none: a run's gate and audit judge it by this.
	Environment string

	descriptions *Descriptions
	attach       *Attachments
	recorded     *Recorded
}

// NewSnapshot is the snapshot of cfg with the kind map kinds and the
// descriptions apis, loaded by desc (nil: none), attached through attach
// (its cache; nil: not cached), with the recorded answers rec finds
// (nil: none).
func NewSnapshot(cfg *config.Snapshot, kinds config.KindMap, apis []APISource, desc *Descriptions, attach *Attachments, rec *Recorded) Snapshot {
	if attach == nil {
		attach = &Attachments{}
	}
	return Snapshot{Config: cfg, Kinds: kinds, APIs: apis, descriptions: desc, attach: attach, recorded: rec}
}

// Kind is the kind of the script at path (with forward slashes) whose
// text is text, and why: its directive, else the kind map, else
// scriptService (config.KindMap.Decide).
func (s Snapshot) Kind(path, text string) config.KindDecision { return s.Kinds.Decide(path, text) }

// Registry is the registry scripts of kind read, or nil when it offers no
// serviceId hints (config.Registry.HintState): the hint engine then
// offers none instead of calling every serviceId unknown.
func (s Snapshot) Registry(kind config.Kind) *config.Registry { return Usable(s.Config.For(kind)) }

// Usable returns reg, or nil when it offers no serviceId hints.
func Usable(reg *config.Registry) *config.Registry {
	if !reg.HintState().Offered {
		return nil
	}
	return reg
}

// APISources are the descriptions a script at path ("" for none) sees:
// the snapshot's, then the recorded answers beside it.
func (s Snapshot) APISources(script string) []APISource {
	src := s.APIs
	if s.recorded != nil {
		if rec := s.recorded.Beside(script); len(rec) > 0 {
			src = append(slices.Clip(src), rec...)
		}
	}
	return src
}

// APIs is the descriptions of reg's services as the script at path sees
// them, those loaded so far; nil when there are none.
func (s Snapshot) APIsFor(script string, reg *config.Registry) *openapi.Set {
	if reg == nil || s.descriptions == nil {
		return nil
	}
	return s.attach.Set(s.descriptions, s.APISources(script), reg)
}

// Options configure a Workspace.
type Options struct {
	// Sources are the configuration's; Load reads them (nil: config.Load).
	Sources config.Sources
	Load    func(config.Sources) *config.Snapshot
	// Kinds is the kind map.
	Kinds config.KindMap
	// APIs are the API descriptions attached.
	APIs []APISource
	// Recorded lets scripts see the recorded answers beside them.
	Recorded bool
	// DescriptionDelay is how long first description loads wait
	// (FirstLoadDelay in an editor; 0 for a command).
	DescriptionDelay time.Duration
	// Logger may be nil.
	Logger *zap.Logger
}

// Workspace is one project: its registry, descriptions and recorded
// answers, from which snapshots are taken.
type Workspace struct {
	opts         Options
	registry     *Registry
	descriptions *Descriptions
	attach       Attachments
	recorded     Recorded
	// answers are the descriptions with their answers' schemas, for the
	// fixture checks, loaded when first asked (WaitAnswers).
	answers       *Descriptions
	answersAttach Attachments
}

// New returns the workspace of o. It reads nothing until asked.
func New(o Options) *Workspace {
	w := &Workspace{opts: o, registry: NewRegistry(o.Sources, o.Load, o.Logger), descriptions: NewDescriptions(o.Logger, o.DescriptionDelay),
		answers: NewAnswerDescriptions(o.Logger, o.DescriptionDelay)}
	w.recorded.Allowed = o.Recorded
	return w
}

// Registry is the workspace's registry.
func (w *Workspace) Registry() *Registry { return w.registry }

// Snapshot is the workspace as it is now.
func (w *Workspace) Snapshot() Snapshot {
	return NewSnapshot(w.registry.Get(), w.opts.Kinds, w.opts.APIs, w.descriptions, &w.attach, &w.recorded)
}

// WaitDescriptions loads every description the scripts at paths see and
// returns once each has loaded or failed, or ctx ends: a command that
// answers once (restls check) waits for what an editor shows when ready.
func (w *Workspace) WaitDescriptions(ctx context.Context, paths []string) error {
	snap := NewSnapshot(nil, nil, w.opts.APIs, w.descriptions, &w.attach, &w.recorded)
	var all []APISource
	seen := map[string]bool{}
	add := func(src []APISource) {
		for _, s := range src {
			if !seen[s.key()] {
				seen[s.key()] = true
				all = append(all, s)
			}
		}
	}
	add(w.opts.APIs)
	for _, p := range paths {
		add(snap.APISources(p))
	}
	return w.descriptions.Wait(ctx, all)
}

// DescriptionProblems are the problems of the local description files the
// workspace has loaded for src (WaitDescriptions first).
func (w *Workspace) DescriptionProblems(src []APISource) []DescriptionProblem {
	docs, _ := w.descriptions.Docs(src)
	return DescriptionProblems(docs)
}

// WaitAnswers loads the workspace's descriptions with their answers'
// schemas and returns once each has loaded or failed, or ctx ends.
func (w *Workspace) WaitAnswers(ctx context.Context) error {
	return w.answers.Wait(ctx, w.opts.APIs)
}

// AnswerAPIs are the descriptions of reg's services with their answers'
// schemas, as loaded so far (WaitAnswers first): what fixture files are
// checked against (CheckFixtures). Recorded answers are none of them.
func (w *Workspace) AnswerAPIs(reg *config.Registry) *openapi.Set {
	if reg == nil || len(w.opts.APIs) == 0 {
		return nil
	}
	return w.answersAttach.Set(w.answers, w.opts.APIs, reg)
}
