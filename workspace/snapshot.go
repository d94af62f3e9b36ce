package workspace

import (
	"context"
	"slices"
	"time"

	"github.com/restls/restls/config"
	"github.com/restls/restls/jslevel"
	"github.com/restls/restls/openapi"
	"github.com/restls/restls/runtime/restclient"
	"go.uber.org/zap"
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
	// TimeLimits are the project file's timeLimits (nil: none).
	TimeLimits map[config.Kind]time.Duration
	// EngineLevel is the JavaScript level the platform's engine accepts
	// (restls.yaml's engine; the zero value, jslevel.Latest, checks
	// nothing): hints report what is beyond it, the run engine refuses it.
	EngineLevel jslevel.Level

	descriptions *Descriptions
	attach       *Attachments
	recorded     *Recorded
	// answers load the descriptions with their answers' schemas for a
	// run's answer check (CheckAnswers), attached through answersAttach;
	// nil: a run's answers are not checked.
	answers       *Descriptions
	answersAttach *Attachments
}

// WithAnswers is s with the store that checks a run's answers (see
// CheckAnswers): answers (NewAnswerDescriptions) attached through cache,
// the cache of its owner's one list of descriptions.
func (s Snapshot) WithAnswers(answers *Descriptions, cache *Attachments) Snapshot {
	if cache == nil {
		cache = &Attachments{}
	}
	s.answers, s.answersAttach = answers, cache
	return s
}

// ChecksAnswers says whether s has a store to check a run's answers
// with (WithAnswers).
func (s Snapshot) ChecksAnswers() bool { return s.answers != nil }

// AnswerAPIs are s's descriptions attached to reg's services with their
// answers' schemas, as its answer store has loaded them so far (starting
// the loads not started): what fixture files are checked and generated
// against. Nil without a store, descriptions or reg.
func (s Snapshot) AnswerAPIs(reg *config.Registry) *openapi.Set {
	if s.answers == nil || reg == nil || len(s.APIs) == 0 {
		return nil
	}
	return s.answersAttach.Set(s.answers, s.APIs, reg)
}

// AnswerStore is the store that checks s's runs' answers (WithAnswers;
// nil when s has none): the session's, so that what else needs the
// answers' schemas (the fault explorer's documented statuses) loads each
// description once with the runs.
func (s Snapshot) AnswerStore() *Descriptions { return s.answers }

// CheckAnswers holds each call of a run to its operation in the
// snapshot's descriptions, as notes on the call (Contract); they never
// fail the run. It is the one answer check of dry runs, wherever they
// were asked (the run engine calls it). The descriptions load, once per
// store, only when there are calls, waiting at most AnswersWait; notice
// (may be nil) hears of each description that could not be read.
func (s Snapshot) CheckAnswers(ctx context.Context, reg *config.Registry, calls []*restclient.Call, notice func(string)) {
	reg = Usable(reg)
	if len(calls) == 0 || reg == nil || len(s.APIs) == 0 || s.answers == nil {
		return
	}
	wctx, cancel := context.WithTimeout(ctx, AnswersWait)
	defer cancel()
	if err := s.answers.Wait(wctx, s.APIs); err != nil {
		s.answers.log.Info("dry run: the descriptions did not load in time; answers not checked", zap.Error(err))
		return
	}
	if notice != nil {
		docs, _ := s.answers.Docs(s.APIs)
		for _, d := range docs {
			if d.Err != nil {
				notice(d.Err.Error() + "; answers are not checked against it")
			}
		}
	}
	set := s.answersAttach.Set(s.answers, s.APIs, reg)
	for _, c := range calls {
		c.Contract = append(c.Contract, CheckCall(set, reg, c)...)
	}
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

// TimeLimit is the limit of a script of kind's static worst-case time
// (hints.Display.TimeLimit), 0 for none.
func (s Snapshot) TimeLimit(kind config.Kind) time.Duration { return s.TimeLimits[kind] }

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
