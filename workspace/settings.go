package workspace

import (
	"slices"
	"strings"

	"github.com/restls/restls/config"
)

// Setting is one setting of a project under each of its names: the
// command-line flag, the environment variable, the editor setting and the
// project file's key. This table is the one place they are written
// together: cmd/restls registers the configuration flags from it, and
// tests hold the language server's settings (lsp), the project file's
// keys (here), the commands' flags and the VS Code extension's settings
// (cmd/restls) to it.
type Setting struct {
	// Flag is the command-line flag ("": none). The configuration flags
	// (those with Source) are registered from here; the others are
	// registered by their commands, with the name written here.
	Flag string
	// Env is the environment variable ("": none).
	Env string
	// Editor is the editor setting: restls.<Editor> in VS Code, the key
	// of initializationOptions and of workspace/configuration's "restls"
	// section ("": none).
	Editor string
	// VSCode says the VS Code extension offers restls.<Editor>.
	VSCode bool
	// Project is the key of restls.yaml ("": none).
	Project string
	// Help is the flag's help text.
	Help string
	// Source sets the flag's value in the sources (nil: not a
	// configuration source flag).
	Source func(s *config.Sources, v string)
}

// Settings is the table, in the order help lists the flags.
func Settings() []Setting { return slices.Clone(settings) }

var settings = []Setting{
	{Flag: "config-root", Env: config.EnvConfigRoot, Editor: "configRoot", VSCode: true, Project: "configRoot",
		Help:   "platform `dir`ectory (webforms) holding " + config.ServiceXMLPath + ", " + config.HandlerXMLPath + ", " + config.PlatformConfigPath + " and " + strings.Join(config.PropertiesNames, "/") + " (env " + config.EnvConfigRoot + "; default: the current directory when no file flag is given)",
		Source: func(s *config.Sources, v string) { s.ConfigRoot = v }},
	{Flag: "properties", Env: config.EnvProperties, Editor: "properties", VSCode: true, Project: "properties",
		Help:   "properties `file` with a scriptservice.api list, YAML (.yml, .yaml) or Java .properties; repeatable, read in order (env " + config.EnvProperties + ")",
		Source: func(s *config.Sources, v string) { s.Properties = append(s.Properties, v) }},
	{Flag: "service-xml", Env: config.EnvServiceXML, Editor: "serviceXml", VSCode: true, Project: "serviceXml",
		Help:   config.ServiceXMLPath[strings.LastIndexByte(config.ServiceXMLPath, '/')+1:] + " `file` for scriptService and validationScript (env " + config.EnvServiceXML + ")",
		Source: func(s *config.Sources, v string) { s.ServiceXML = v }},
	{Flag: "handler-xml", Env: config.EnvHandlerXML, Editor: "handlerXml", VSCode: true, Project: "handlerXml",
		Help:   config.HandlerXMLPath[strings.LastIndexByte(config.HandlerXMLPath, '/')+1:] + " `file` for scriptTask (env " + config.EnvHandlerXML + ")",
		Source: func(s *config.Sources, v string) { s.HandlerXML = v }},
	{Flag: "platform-config", Env: config.EnvPlatformConfig, Editor: "platformConfig", VSCode: true, Project: "platformConfig",
		Help:   "platform config XML `file` holding <config><VENDOR><restclient> timeouts (env " + config.EnvPlatformConfig + ")",
		Source: func(s *config.Sources, v string) { s.PlatformConfig = v }},
	// The editor's registryUrl is for the designer and remote setups; VS
	// Code users name files (docs/http.md, "registryUrl").
	{Flag: "registry-url", Editor: "registryUrl", Project: "registryUrl"},
	{Flag: "openapi", Editor: "openapi", VSCode: true, Project: "openapi"},
	{Flag: "kind-map", Editor: "scriptKinds", VSCode: true, Project: "scriptKinds"},
	// explicitKinds: the session's scriptKinds are the kinds the user
	// chose (the designer's selector), winning over a script's directive.
	{Editor: "explicitKinds"},
	{Flag: "env", Editor: "environment", Project: "defaultEnvironment"},
	{Editor: "inlayHints", VSCode: true},
	// The editor's own environments, listed with the project file's
	// (restls/status) and picked by "environment".
	{Editor: "environments", VSCode: true},
	// Which files are platform scripts (workspace.DefaultScriptGlobs).
	{Editor: "include", VSCode: true},
	{Flag: "validate-responses", Project: "validateResponses"},
	// coverage.enabled, .min and .dir: --coverage, --coverage-min and
	// --coverage-dir.
	{Flag: "coverage", Project: "coverage"},
	{Flag: "project"},
}
