package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

// CommandDecl declares one restls.* workspace/executeCommand command: its
// name, the type of its one argument and the type of its answer. The
// table of them (CommandTable) is the wire's declaration of the commands:
// the server advertises, dispatches and documents from it, and a
// generator of client types reads Params and Result from it by
// reflection.
type CommandDecl struct {
	// Name is the command id, "restls.<verb>".
	Name string
	// Params is the type of the command's one argument (a struct), which
	// is decoded strictly: an unknown member or a wrong type is an
	// InvalidParams error naming the command and Takes. Nil for a command
	// that takes no argument: it ignores what it is sent, as it always
	// has (clients send [], [{}] or a document's uri).
	Params reflect.Type
	// Result is the type of the command's answer on success.
	Result reflect.Type
	// Takes says what the argument is, for error messages and docs.
	Takes string
	// Optional is true when the argument may be left out (or null).
	Optional bool

	run func(s *session, ctx context.Context, c commandCall, arg json.RawMessage) (any, error)
}

// commandCall is what a command's handler may need of the request that
// carried it besides its argument.
type commandCall struct {
	req   *jsonrpc2.Request
	token protocol.ProgressToken
}

// argOptional and argRequired say whether a command's argument may be
// left out.
const (
	argRequired = false
	argOptional = true
)

// checked is implemented by a params type whose fields say more than
// their types do (a uri that must be set): complete reports whether a
// decoded argument has what the command needs.
type checked interface{ complete() bool }

// command declares the command name, whose argument decodes into P and
// whose answer is R; run handles it with the decoded argument. Every
// command's argument is decoded here, once.
func command[P, R any](name, takes string, optional bool, run func(s *session, ctx context.Context, c commandCall, p *P) (R, error)) CommandDecl {
	return CommandDecl{
		Name: name, Takes: takes, Optional: optional,
		Params: reflect.TypeFor[P](),
		Result: reflect.TypeFor[R](),
		run: func(s *session, ctx context.Context, c commandCall, arg json.RawMessage) (any, error) {
			var p P
			absent := len(arg) == 0 || string(bytes.TrimSpace(arg)) == "null"
			if absent && !optional {
				return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s takes %s", name, takes)
			}
			if !absent {
				if err := decodeStrict(arg, &p); err != nil {
					if ae := (argError{}); errors.As(err, &ae) {
						return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", name, ae)
					}
					return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s takes %s: %v", name, takes, err)
				}
			}
			if c, ok := any(&p).(checked); ok && !absent && !c.complete() {
				return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s takes %s", name, takes)
			}
			res, err := run(s, ctx, c, &p)
			if err != nil {
				return nil, err
			}
			return res, nil
		},
	}
}

// commandWithoutArgs declares the command name, which takes no argument
// and answers R.
func commandWithoutArgs[R any](name string, run func(s *session, ctx context.Context, c commandCall) (R, error)) CommandDecl {
	return CommandDecl{
		Name: name, Takes: "no argument", Optional: true,
		Result: reflect.TypeFor[R](),
		run: func(s *session, ctx context.Context, c commandCall, _ json.RawMessage) (any, error) {
			res, err := run(s, ctx, c)
			if err != nil {
				return nil, err
			}
			return res, nil
		},
	}
}

// argError is the error of a member's own decoder (UnmarshalJSON), which
// says what the member takes itself.
type argError struct{ error }

// decodeStrict decodes one JSON value into v, refusing members v has no
// field for and anything after the value.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("more than one JSON value")
	}
	return nil
}

// ReloadResult is the answer of restls.reload.
type ReloadResult struct {
	Reloaded bool `json:"reloaded"`
}

// ShowEntryResult is the answer of restls.showEntry: whether the client
// showed the entry.
type ShowEntryResult struct {
	Shown bool `json:"shown"`
}

// CommandTable declares every command the server offers through
// workspace/executeCommand, in the order it advertises them. Adding a
// command is one entry here and its handler (docs/decisions.md, "Typed
// wire: commands").
var CommandTable = []CommandDecl{
	command(CommandRunScript, "one argument {uri, kind?, input?, mock?, record?} naming an open document", argRequired, (*session).runScript),
	command(CommandServices, "{kind?, uri?}", argOptional, (*session).services),
	commandWithoutArgs(CommandServiceTree, (*session).serviceTreeCommand),
	command(CommandPasteCurl, "one argument {uri, position, curl} naming an open document, a position in it and a curl command line", argRequired, (*session).pasteCurl),
	command(CommandCompareWithPrevious, historyTakes, argRequired, (*session).compareWithPrevious),
	command(CommandCompareWithFixtures, historyTakes, argRequired, (*session).compareWithFixtures),
	command(CommandUpdateFixtures, historyTakes, argRequired, (*session).updateFixtures),
	command(CommandRunTests, testTakes("{uri, name?, show?, coverage?}"), argRequired, (*session).runTests),
	command(CommandUpdateTest, testTakes("{uri, name}"), argRequired, (*session).updateTest),
	command(CommandListTests, testTakes("{uri, name?, show?}"), argRequired, (*session).listTests),
	command(CommandShowEntry, "one argument {uri, range} naming a file", argRequired, (*session).showEntry),
	commandWithoutArgs(CommandReload, (*session).reload),
	command(CommandExploreFaults, "one argument {uri, kind?, input?, mock?, outcomes?, maxRuns?} naming an open document", argRequired, (*session).exploreFaults),
}

// commandByName finds a command of CommandTable.
var commandByName = func() map[string]*CommandDecl {
	m := make(map[string]*CommandDecl, len(CommandTable))
	for i := range CommandTable {
		m[CommandTable[i].Name] = &CommandTable[i]
	}
	return m
}()

// commandNames are the names of CommandTable, as the server advertises
// them.
func commandNames() []string {
	out := make([]string, len(CommandTable))
	for i, c := range CommandTable {
		out[i] = c.Name
	}
	return out
}

// executeCommand is the one dispatch of workspace/executeCommand: it
// finds the command, decodes its argument into the command's params type
// and runs its handler.
func (s *session) executeCommand(ctx context.Context, req *jsonrpc2.Request, p *protocol.ExecuteCommandParams) (any, error) {
	c, ok := commandByName[p.Command]
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "restls: unknown command %q; the commands are %s", p.Command, strings.Join(commandNames(), ", "))
	}
	if len(p.Arguments) > 1 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s takes %s, not %d arguments", c.Name, c.Takes, len(p.Arguments))
	}
	var arg json.RawMessage
	if len(p.Arguments) == 1 {
		arg = json.RawMessage(p.Arguments[0])
	}
	return c.run(s, ctx, commandCall{req: req, token: p.WorkDoneToken}, arg)
}

// reload answers restls.reload.
func (s *session) reload(context.Context, commandCall) (*ReloadResult, error) {
	if !s.opts.MayReload {
		return nil, s.refused(CommandReload)
	}
	if f := s.opts.ReloadRefused; f != nil {
		if err := f(); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s: %v", CommandReload, err)
		}
	}
	// Runs in order: requests after it see the new registry.
	s.srv.ws.Reload()
	return &ReloadResult{Reloaded: true}, nil
}

// services answers restls.services: the services of a kind, by the
// kind named, else the kind of the script named, else scriptService.
func (s *session) services(_ context.Context, _ commandCall, a *ServicesArgs) (map[string]config.HintsEntry, error) {
	kind := config.ScriptService
	if a.URI != "" {
		if v, ok := s.viewOf(canonicalURI(a.URI)); ok {
			kind = v.kind
		}
	}
	if a.Kind != "" {
		k, err := config.ParseKind(a.Kind)
		if err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", CommandServices, err)
		}
		kind = k
	}
	return s.snapshot().For(kind).HintsMap(), nil
}

// serviceTreeCommand answers restls.serviceTree.
func (s *session) serviceTreeCommand(context.Context, commandCall) (ServiceTree, error) {
	return s.serviceTree(), nil
}

// historyTakes is what the history commands take.
const historyTakes = "one argument {uri} naming an open document"

// testTakes is what a test command taking want takes.
func testTakes(want string) string {
	return fmt.Sprintf("one argument %s naming a test file (*%s)", want, workspace.TestFileSuffix)
}
