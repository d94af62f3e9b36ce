package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// instructions is what an agent is told at initialize.
const instructions = `restls knows the platform scripts of this project: JavaScript that calls external REST services only through api.rest.v1 (get, delete, post, put, patch), each call naming a configured serviceId, never a URL. It holds the configured services (without credentials), their API descriptions, the editor's checks and quick fixes, and a runtime that runs a script against recorded answers (fixtures) instead of the network.

Work in this order:
1. services: the serviceIds of the script's kind, their urls and the operations of their API descriptions. Never invent a serviceId or a path.
2. contract: for a serviceId and a path/method, its parameters, payload schema and answers (response.body's shape, and what an error throws).
3. Write the script (the resource restls://docs/api.md is the contract of api.rest.v1: arguments in order, PATH = {pathParams: [...], queryParams: {...}}, pass {} for no header or payload; a non-2XX answer throws).
4. check: the diagnostics the editor would show, with quick fixes as edits; apply the preferred fix's edits and check again until no error is left. complete offers what the editor offers at a position.
5. fixtures: fixtures for the script's calls from their descriptions; write the text it returns to the file it names.
6. Run the script with fixtures, then its test file, when those tools are offered; faults shows how it copes with each call failing.

references lists every place a serviceId is used (what a rename changes); impact lists the calls a configuration change since a git revision breaks; curl turns a curl command line into an api.rest.v1 call. Paths are relative to the project root; lines and columns count from 1, columns in characters.`

// addTools registers the tools.
func (s *Server) addTools() {
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}
	addTool(s, &sdk.Tool{Name: "services", Title: "Configured services", Annotations: ro,
		Description: "Lists the services scripts of a kind may call: serviceId, resolved url, description, authorization kind (never a credential) and the operations of the API description attached to each. Call it first: a script may only call these serviceIds."}, s.services)
	addTool(s, &sdk.Tool{Name: "contract", Title: "Operation contract", Annotations: ro,
		Description: "Gives the contract of a service's operation from its API description: path, query and header parameters, the payload's schema, the answer's schema with an example, and the documented error answers. Without path it lists the service's operations."}, s.contract)
	addTool(s, &sdk.Tool{Name: "check", Title: "Check a script", Annotations: ro,
		Description: "Checks a script (its text, or its path in the project) as the editor does: each diagnostic with its code, severity, message and range, and quick fixes as text edits. Apply a fix's edits to the text you gave, last edit first, and check again."}, s.check)
	addTool(s, &sdk.Tool{Name: "complete", Title: "Completion at a position", Annotations: ro,
		Description: "Lists what the editor's completion offers at a line and column of a script: api.rest.v1 calls, serviceIds, path segments, parameters, payload and answer fields."}, s.complete)
	addTool(s, &sdk.Tool{Name: "references", Title: "References of a serviceId", Annotations: ro,
		Description: "Lists every place a serviceId is named across the project: its definitions in the configuration, <id>/<suffix> urls, the scripts' calls (with method and path) and the fixtures and test files: exactly what a rename would change."}, s.references)
	addTool(s, &sdk.Tool{Name: "curl", Title: "curl to api.rest.v1", Annotations: ro,
		Description: "Turns a curl command line into the api.rest.v1 call that sends the same request to the configured serviceId whose url the command's URL extends, with notes on what was left out."}, s.curl)
	addTool(s, &sdk.Tool{Name: "fixtures", Title: "Fixtures from the descriptions", Annotations: ro,
		Description: "Builds fixtures (recorded answers a dry run replays) for a script's calls from their API descriptions, and returns the whole text of the fixtures file beside the script with them added. Nothing is written: write the text to the file named."}, s.fixtures)
	if s.o.Run != nil {
		addTool(s, &sdk.Tool{Name: "run", Title: "Dry run with fixtures", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: !s.o.AllowLive, OpenWorldHint: new(s.o.AllowLive)},
			Description: "Runs a script as the platform would, its api.rest.v1 calls answered by fixtures (inline, a file, or the fixtures file beside the script) instead of the services: the result or the error thrown, every call with its request, answer and contract notes, and the console output. A call no fixture answers fails with no-fixture. live sends those calls to the services, where restls allows it."}, s.run)
	}
	if s.o.Tests != nil {
		addTool(s, &sdk.Tool{Name: "test", Title: "Run a test file", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)},
			Description: "Runs a restls test file (NAME.test.yaml: a script, its input, fixtures and the expected result, calls and logs of each case) as restls test does, with fixtures only: each case passed or failed, with the differences by JSON path and its run."}, s.testFile)
	}
	if s.o.Tests != nil {
		addTool(s, &sdk.Tool{Name: "faults", Title: "Explore a script's failure paths", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)},
			Description: "Proves a script's error paths with fixtures only: runs it with its fixtures (which must succeed), then again for each call site (the first call of each serviceId, method and path) with that call failing in each way a call can fail (an undocumented 500, a 404, a 400, an answer that is not JSON, timeouts, a refused connection, ...). Each finding gives the site's line, the outcome and a verdict: handled, escaped (the error left the script), crashed (a TypeError or similar after the failure), misread (a failure taken for an answer of the service) or unanswered (a later call has no fixture). Fix crashed and misread ones; ok says none is left."}, s.exploreFaults)
	}
	if s.o.Impact != nil {
		addTool(s, &sdk.Tool{Name: "impact", Title: "Impact of a configuration change", Annotations: ro,
			Description: "Lists the scripts' calls whose serviceId became unknown or unusable, whose url changed host or path, or whose authorization changed between the configuration at a git revision and the working tree's (restls check --since)."}, s.impact)
	}
}

// anyValue is the schema of a field typed any (a JSON Schema, a run's
// result): any JSON value, written as an object. The SDK would write the
// boolean schema true, which means the same but which clients built on
// the TypeScript SDK refuse in a tool's schemas.
var anyValue = &jsonschema.Schema{Description: "any JSON value", Types: []string{"null", "boolean", "number", "string", "array", "object"}}

// addTool adds a tool with its input and output schemas derived from In
// and Out, any and json.RawMessage (a script's result) as anyValue.
func addTool[In, Out any](s *Server, t *sdk.Tool, h sdk.ToolHandlerFor[In, Out]) {
	opts := &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[any](): anyValue, reflect.TypeFor[json.RawMessage](): anyValue}}
	in, err := jsonschema.For[In](opts)
	if err != nil {
		panic(fmt.Sprintf("tool %s: input schema: %v", t.Name, err))
	}
	out, err := jsonschema.For[Out](opts)
	if err != nil {
		panic(fmt.Sprintf("tool %s: output schema: %v", t.Name, err))
	}
	t.InputSchema, t.OutputSchema = in, out
	sdk.AddTool(s.srv, t, h)
}
