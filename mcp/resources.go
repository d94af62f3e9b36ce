package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/restls/restls/config"
	"github.com/restls/restls/docs"
	"github.com/restls/restls/input"
	"github.com/restls/restls/openapi"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/scripttest"
	"github.com/restls/restls/workspace"
)

// Resources' URIs.
const (
	uriAPI          = "restls://docs/api.md"
	uriProject      = "restls://project/restls.yaml"
	uriServices     = "restls://services/"
	uriMockSchema   = "restls://schema/mock.schema.json"
	uriTestSchema   = "restls://schema/test.schema.json"
	uriConfigSchema = "restls://schema/restls.schema.json"
)

func (s *Server) addResources() {
	static := func(uri, name, title, mime, desc string, data string) {
		s.srv.AddResource(&sdk.Resource{URI: uri, Name: name, Title: title, MIMEType: mime, Description: desc, Size: int64(len(data))},
			func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
				return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: mime, Text: data}}}, nil
			})
	}
	static(uriAPI, "api.md", "The api.rest.v1 contract", "text/markdown",
		"What a script may call through api.rest.v1, the arguments of each call, what comes back and what is thrown, how services and their authorization are configured, and the timeouts.", docs.API)
	static(uriMockSchema, "mock.schema.json", "Fixtures file JSON Schema", "application/schema+json",
		"The JSON Schema of a fixtures file (NAME.mock.yaml beside a script): the recorded answers a dry run replays instead of calling the services.", string(restclient.MockSchema))
	static(uriTestSchema, "test.schema.json", "Test file JSON Schema", "application/schema+json",
		"The JSON Schema of a test file of restls test (NAME.test.yaml): the script, its input, fixtures and the expected result and calls of each case.", string(scripttest.Schema))
	static(uriConfigSchema, "restls.schema.json", "Project file JSON Schema", "application/schema+json",
		"The JSON Schema of the project file restls.yaml.", string(workspace.Schema))
	if s.o.ProjectFile != "" {
		s.srv.AddResource(&sdk.Resource{URI: uriProject, Name: "restls.yaml", Title: "The project file", MIMEType: "application/yaml",
			Description: "The project file in force: where the configuration, API descriptions and script kinds come from, its environments and check settings."}, s.projectResource)
	}
	for _, k := range config.Kinds {
		uri := uriServices + string(k)
		s.srv.AddResource(&sdk.Resource{URI: uri, Name: "services-" + string(k), Title: "Services of " + string(k), MIMEType: "application/json",
			Description: "The services map of " + string(k) + " scripts: serviceId to resolved url and description, as the editor's hints read it; never a credential."},
			func(ctx context.Context, _ *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
				return s.servicesResource(ctx, uri, k)
			})
	}
}

func (s *Server) projectResource(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	data, err := input.ReadFile(s.o.ProjectFile, input.Config)
	if err != nil {
		return nil, fmt.Errorf("cannot read the project file %s: %v", s.rel(s.o.ProjectFile), unwrapPath(err))
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uriProject, MIMEType: "application/yaml", Text: string(data)}}}, nil
}

func (s *Server) servicesResource(ctx context.Context, uri string, k config.Kind) (*sdk.ReadResourceResult, error) {
	snap, err := s.snapshot(ctx, "")
	if err != nil {
		return nil, err
	}
	m := map[string]config.HintsEntry{}
	if reg := workspaceUsable(snap.Config.For(k)); reg != nil {
		for id, e := range reg.HintsMap() {
			e.URL = openapi.Redact(e.URL)
			m[id] = e
		}
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(data)}}}, nil
}

func (s *Server) addPrompts() {
	s.srv.AddPrompt(&sdk.Prompt{Name: "write-script", Title: "Write a script calling a service",
		Description: "Write a platform script that calls a configured service through api.rest.v1, checked by restls.",
		Arguments: []*sdk.PromptArgument{
			{Name: "task", Description: "what the script should do", Required: true},
			{Name: "serviceId", Description: "the serviceId to call, when known"},
			{Name: "path", Description: "where to write the script, relative to the project root"},
			{Name: "kind", Description: "scriptService, scriptTask or validationScript"},
		}}, s.writeScriptPrompt)
	s.srv.AddPrompt(&sdk.Prompt{Name: "add-test", Title: "Add a test with fixtures",
		Description: "Add fixtures and a restls test file for a script, and run them.",
		Arguments: []*sdk.PromptArgument{
			{Name: "path", Description: "the script, relative to the project root", Required: true},
		}}, s.addTestPrompt)
}

// maxPromptArg bounds a prompt argument.
const maxPromptArg = 16 << 10

func promptArgs(req *sdk.GetPromptRequest, names ...string) ([]string, error) {
	out := make([]string, len(names))
	for i, n := range names {
		v := req.Params.Arguments[n]
		if len(v) > maxPromptArg {
			return nil, fmt.Errorf("argument %s is %d bytes, above the %d limit", n, len(v), maxPromptArg)
		}
		out[i] = v
	}
	return out, nil
}

func (s *Server) writeScriptPrompt(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	a, err := promptArgs(req, "task", "serviceId", "path", "kind")
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Write a platform script that does this: %s\n\n", a[0])
	if a[3] != "" {
		fmt.Fprintf(&b, "It is a %s script: start it with the line // restls-kind: %s unless the project's scriptKinds decide that already.\n", a[3], a[3])
	}
	b.WriteString("Use restls's tools in this order:\n")
	if a[1] != "" {
		fmt.Fprintf(&b, "1. services (query %q) to confirm serviceId %s and see its operations;\n", a[1], a[1])
		fmt.Fprintf(&b, "2. contract for serviceId %s and the path you call, for its parameters, payload and answer;\n", a[1])
	} else {
		b.WriteString("1. services to find the serviceId that fits; never invent one;\n2. contract for that serviceId and the path you call;\n")
	}
	b.WriteString("3. write the script with api.rest.v1 calls as restls://docs/api.md says (a non-2XX answer throws: catch it where the task needs);\n")
	where := "the text"
	if a[2] != "" {
		where = "path " + a[2] + " (and the text until it is saved)"
	}
	fmt.Fprintf(&b, "4. check with %s; apply the preferred quick fixes' edits and check again until no error is left;\n", where)
	b.WriteString("5. fixtures for its calls, write the fixtures file it names, and run the script with them when the run tool is offered.\n")
	return &sdk.GetPromptResult{Description: "Write a script calling a service", Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: b.String()}}}}, nil
}

func (s *Server) addTestPrompt(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	a, err := promptArgs(req, "path")
	if err != nil {
		return nil, err
	}
	if a[0] == "" {
		return nil, fmt.Errorf("give path: the script to test, relative to the project root")
	}
	test := strings.TrimSuffix(a[0], ".js") + workspace.TestFileSuffix
	text := fmt.Sprintf(`Add a test for the script %[1]s.

1. check %[1]s and fix its errors first.
2. fixtures with path %[1]s: write the fixtures file it names (answers for every call; add the error answers the contract tool lists for the paths the script handles).
3. Write the test file %[2]s as restls://schema/test.schema.json describes: script: the script's name, and cases, each with its input, the fixtures file, and the expected result and calls.
4. Run the test when the test tool is offered, and fix the script or the expectations until every case passes.
`, a[0], test)
	return &sdk.GetPromptResult{Description: "Add a test with fixtures", Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: text}}}}, nil
}
