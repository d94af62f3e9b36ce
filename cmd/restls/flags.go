package main

import (
	"flag"
	"strings"

	"github.com/restls/restls/config"
)

// setting is one setting of a project under each of its names: the
// command-line flag, the environment variable, the editor setting and the
// project file's key. This table is the one place they are written
// together; TestSettingNamesAgree holds the language server's settings,
// the VS Code extension's and the project file's schema to it.
type setting struct {
	// flag is the command-line flag ("": none). The configuration flags
	// (those with source) are registered from here; the others are
	// registered by their commands, with the name written here.
	flag string
	// env is the environment variable ("": none).
	env string
	// editor is the editor setting: restls.<editor> in VS Code, the key
	// of initializationOptions and of workspace/configuration's "restls"
	// section ("": none).
	editor string
	// vscode says the VS Code extension offers restls.<editor>.
	vscode bool
	// project is the key of restls.yaml ("": none).
	project string
	// help is the flag's help text.
	help string
	// source sets the flag's value in the sources (nil: not a
	// configuration source flag).
	source func(s *config.Sources, v string)
}

// settings is the table, in the order help lists the flags.
var settings = []setting{
	{flag: "config-root", env: config.EnvConfigRoot, editor: "configRoot", vscode: true, project: "configRoot",
		help:   "platform `dir`ectory (webforms) holding " + config.ServiceXMLPath + ", " + config.HandlerXMLPath + ", " + config.PlatformConfigPath + " and " + strings.Join(config.PropertiesNames, "/") + " (env " + config.EnvConfigRoot + "; default: the current directory when no file flag is given)",
		source: func(s *config.Sources, v string) { s.ConfigRoot = v }},
	{flag: "properties", env: config.EnvProperties, editor: "properties", vscode: true, project: "properties",
		help:   "properties `file` with a scriptservice.api list, YAML (.yml, .yaml) or Java .properties; repeatable, read in order (env " + config.EnvProperties + ")",
		source: func(s *config.Sources, v string) { s.Properties = append(s.Properties, v) }},
	{flag: "service-xml", env: config.EnvServiceXML, editor: "serviceXml", vscode: true, project: "serviceXml",
		help:   config.ServiceXMLPath[strings.LastIndexByte(config.ServiceXMLPath, '/')+1:] + " `file` for scriptService and validationScript (env " + config.EnvServiceXML + ")",
		source: func(s *config.Sources, v string) { s.ServiceXML = v }},
	{flag: "handler-xml", env: config.EnvHandlerXML, editor: "handlerXml", vscode: true, project: "handlerXml",
		help:   config.HandlerXMLPath[strings.LastIndexByte(config.HandlerXMLPath, '/')+1:] + " `file` for scriptTask (env " + config.EnvHandlerXML + ")",
		source: func(s *config.Sources, v string) { s.HandlerXML = v }},
	{flag: "platform-config", env: config.EnvPlatformConfig, editor: "platformConfig", vscode: true, project: "platformConfig",
		help:   "platform config XML `file` holding <config><VENDOR><restclient> timeouts (env " + config.EnvPlatformConfig + ")",
		source: func(s *config.Sources, v string) { s.PlatformConfig = v }},
	// The editor's registryUrl is for the designer and remote setups; VS
	// Code users name files (docs/http.md, "registryUrl").
	{flag: "registry-url", editor: "registryUrl", project: "registryUrl"},
	{flag: "openapi", editor: "openapi", vscode: true, project: "openapi"},
	{flag: "kind-map", editor: "scriptKinds", vscode: true, project: "scriptKinds"},
	{flag: "env", editor: "environment", project: "defaultEnvironment"},
	{editor: "inlayHints", vscode: true},
	{flag: "project"},
}

// registerSources adds the configuration source flags to fs, each
// setting its field of *src.
func registerSources(fs *flag.FlagSet, src *config.Sources) {
	for _, s := range settings {
		if s.source == nil {
			continue
		}
		set := s.source
		fs.Func(s.flag, s.help, func(v string) error {
			set(src, v)
			return nil
		})
	}
}
