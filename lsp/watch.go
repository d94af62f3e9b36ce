package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

const watcherID = "restls-config-files"

// applySettingsLocked makes set the session's settings: sources equal to the
// server's use the shared registry, others get the session's own.
func (s *session) applySettingsLocked(set settings) {
	if len(set.ScriptKinds) == 0 {
		set.ScriptKinds = s.srv.ws.Kinds() // the project file's, under the editor's
	}
	if s.opts.SourcesRefused != nil {
		// The editor's environments name files: not this session's to read.
		set.Environments = nil
	}
	s.settings = set
	chosen := set.sources(s.root)
	if e, ok := s.editorEnvironmentLocked(); ok {
		// An editor environment replaces the plain settings as a whole:
		// what it leaves unset is never taken from them.
		chosen = e.sources(s.root)
	}
	src := s.baseSourcesLocked().Override(chosen)
	switch {
	case src.Equal(s.srv.ws.Sources()):
		s.own = nil
	case s.own == nil || !s.own.Sources().Equal(src):
		s.own = workspace.NewRegistry(src, s.load(), s.log)
	}
}

// The environment of a language-server session is the workspace's rule
// (workspace.PickFrom): the "environment" setting names one of the
// editor's environments (the "environments" setting), which wins, or one
// of the project file's; no name leaves the default (the project file's
// default or --env, else none), and a name that is neither is warned of
// and leaves the default too. restls/status reports the names and the
// one in force, and the editor offers them: it keeps no rule of its own.

// chooseLocked is the rule's choice for the session's settings, and the
// editor environment it picked, if it picked one.
func (s *session) chooseLocked() (workspace.Choice, settings) {
	c, e, err := workspace.PickFrom(s.srv.ws.EnvironmentSet(), s.settings.Environment, s.settings.Environments)
	if err != nil {
		c, e, _ = workspace.PickFrom(s.srv.ws.EnvironmentSet(), "", s.settings.Environments)
	}
	return c, e
}

// editorEnvironmentLocked is the editor environment the "environment"
// setting names, if it names one.
func (s *session) editorEnvironmentLocked() (settings, bool) {
	c, e := s.chooseLocked()
	return e, c.Client
}

// baseSourcesLocked are the sources the session's settings override:
// those of the project file's environment in force, the server's own for
// an editor environment.
func (s *session) baseSourcesLocked() config.Sources {
	return s.srv.ws.EnvironmentSources(s.environmentLocked())
}

// environmentLocked is the project file's environment in force for the
// session, "" when the file defines none or an editor environment is in
// force: the environment a run is judged and audited in.
func (s *session) environmentLocked() string {
	if c, _ := s.chooseLocked(); !c.Client {
		return c.Name
	}
	return ""
}

// environmentsLocked are the environments the editor may pick, sorted
// (the project file's and the editor's), and the one in force: "" when
// none is (the plain settings).
func (s *session) environmentsLocked() (names []string, current string) {
	names = workspace.NamesWith(s.srv.ws.EnvironmentSet(), s.settings.Environments)
	if names == nil {
		return nil, ""
	}
	c, _ := s.chooseLocked()
	return names, c.Name
}

// environmentProblem says what is wrong with the environment setting,
// "" when nothing is.
func (s *session) environmentProblem(set settings) string {
	if s.opts.SourcesRefused != nil {
		set.Environments = nil
	}
	_, _, err := workspace.PickFrom(s.srv.ws.EnvironmentSet(), set.Environment, set.Environments)
	var unknown *workspace.UnknownEnvironmentError
	if !errors.As(err, &unknown) {
		return ""
	}
	if len(unknown.Known) == 0 {
		return fmt.Sprintf("restls.environment %q: no environments are defined (restls.yaml's environments, or the editor's restls.environments); the setting is ignored", set.Environment)
	}
	using := s.srv.ws.EnvironmentSet().Default()
	if using == "" {
		using = "the plain settings"
	}
	return fmt.Sprintf("restls.environment %q: no such environment (there are %s); using %s", set.Environment, strings.Join(unknown.Known, ", "), using)
}

// setSettings applies new settings and re-publishes everything they affect.
func (s *session) setSettings(ctx context.Context, set settings, problems []string) {
	if msg := s.environmentProblem(set); msg != "" {
		problems = append(problems, msg)
	}
	s.mu.Lock()
	before := s.registryLocked()
	s.applySettingsLocked(set)
	after := s.registryLocked()
	s.mu.Unlock()
	for _, msg := range problems {
		s.log.Warn("settings problem", zap.String("problem", msg))
		s.showMessage(ctx, protocol.MessageTypeWarning, msg)
	}
	if before != after {
		s.log.Info("configuration sources changed", zap.Any("sources", after.Sources()))
		// A call to the client: never on the read goroutine, which runs this
		// for a pushed didChangeConfiguration and must stay free to read the
		// answer.
		s.bg.Go(func() { s.safely("watchers", func() { s.registerWatchers(s.ctx) }) })
	}
	// scriptKinds may have changed a document's kind even with the same sources.
	s.markConfigDirty()
}

// pullSettings asks the client for the "restls" section when it supports
// workspace/configuration. It is a call to the client, so it must never run
// on the read goroutine.
func (s *session) pullSettings(ctx context.Context) {
	s.mu.Lock()
	pull := s.caps.configPull
	s.mu.Unlock()
	if !pull {
		return
	}
	// One pull at a time, call and apply together: two overlapping pulls
	// (initialized and a didChangeConfiguration) must not apply an older
	// answer after a newer one.
	s.pullMu.Lock()
	defer s.pullMu.Unlock()
	section := "restls"
	var res []json.RawMessage
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := s.conn.Call(ctx, protocol.MethodWorkspaceConfiguration, &protocol.ConfigurationParams{
		Items: []protocol.ConfigurationItem{{Section: &section}},
	}, &res); err != nil {
		s.log.Info("workspace/configuration failed; keeping initializationOptions", zap.Error(err))
		return
	}
	if len(res) == 0 || string(res[0]) == "null" || string(res[0]) == "{}" || isEmptyArray(res[0]) {
		return // nothing configured in the editor: keep initializationOptions
	}
	set, problems := parseSettings(res[0])
	s.setSettings(s.ctx, set, problems)
}

// registerWatchers asks a client that can watch files to watch the
// configuration files for us. The session then stops polling.
func (s *session) registerWatchers(ctx context.Context) {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	s.mu.Lock()
	can := s.caps.dynamicWatch && s.state == stateInitialized
	files := s.registryLocked().Files()
	had := s.watching
	s.mu.Unlock()
	if !can {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if had {
		_, _ = s.conn.Call(ctx, protocol.MethodClientUnregisterCapability, &protocol.UnregistrationParams{
			Unregisterations: []protocol.Unregistration{{ID: watcherID, Method: protocol.MethodWorkspaceDidChangeWatchedFiles}},
		}, nil)
	}
	var watchers []protocol.FileSystemWatcher
	abs := make([]string, 0, len(files))
	for _, f := range files {
		a := cleanAbs(f)
		abs = append(abs, a)
		watchers = append(watchers, protocol.FileSystemWatcher{GlobPattern: protocol.Pattern(hostPaths.globPattern(a))})
	}
	watchers = append(watchers, indexWatchers()...) // the project index's scripts, fixtures and tests
	opts, err := protocol.Marshal(&protocol.DidChangeWatchedFilesRegistrationOptions{Watchers: watchers})
	if err != nil {
		s.log.Error("cannot encode watcher registration", zap.Error(err))
		return
	}
	_, err = s.conn.Call(ctx, protocol.MethodClientRegisterCapability, &protocol.RegistrationParams{
		Registrations: []protocol.Registration{{ID: watcherID, Method: protocol.MethodWorkspaceDidChangeWatchedFiles, RegisterOptions: opts}},
	}, nil)
	s.mu.Lock()
	s.watching = err == nil
	s.mu.Unlock()
	if err != nil {
		s.log.Info("client did not accept file watchers; polling instead", zap.Error(err))
		return
	}
	s.log.Debug("client watches the configuration files", zap.Strings("files", abs))
}

// watchLoop polls the configuration files when the client does not watch
// them: a stat of a handful of files every PollInterval.
func (s *session) watchLoop(ctx context.Context) {
	every := s.srv.opts.PollInterval
	if every < 0 {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.safely("watch", s.poll)
	}
}

// poll checks the session's configuration files once.
func (s *session) poll() {
	s.mu.Lock()
	skip := s.watching || s.state != stateInitialized
	own := s.own
	s.mu.Unlock()
	if skip {
		return
	}
	s.pollProjectIndex(s.srv.opts.PollInterval)
	if own == nil {
		s.srv.ws.ReloadIfChanged()
		return
	}
	if own.ReloadIfChanged() {
		s.log.Info("configuration files changed; reloaded", zap.Strings("files", own.Files()))
		s.registryReloaded(true)
	}
}

// configFilesChanged reloads the registries that read any of paths.
func (s *session) configFilesChanged(paths []string) {
	s.mu.Lock()
	own := s.own
	s.mu.Unlock()
	shared := s.srv.ws.Registry()
	hit := func(r *workspace.Registry) bool {
		files := r.Files()
		for _, p := range paths {
			if isConfigFile(p, files) {
				return true
			}
		}
		return false
	}
	if own != nil && hit(own) {
		s.log.Info("configuration files changed; reloading", zap.Strings("files", paths))
		own.Reload()
		s.registryReloaded(true)
	}
	if hit(shared) {
		s.log.Info("configuration files changed; reloading", zap.Strings("files", paths))
		s.srv.ws.ReloadDefault()
	}
}
