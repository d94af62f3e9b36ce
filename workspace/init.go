package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
)

// The bounds of Init's search for a platform layout below the directory:
// a repository holds its platform directory near the top, and a home
// directory given by mistake must not be walked whole.
const (
	initMaxDepth   = 4
	initMaxEntries = 20_000
)

// ErrExists is returned, wrapped, by WriteInit when the directory holds a
// project file already.
var ErrExists = errors.New("restls.yaml exists")

// layout is what Init found below its directory.
type layout struct {
	root                                   string // a config root: holds script-code-config/... or script-handler-config/...
	properties                             []string
	serviceXML, handlerXML, platformConfig string
	scriptDirs                             []string // directories named tasks or validation*, for scriptKinds
}

// Init returns the content of a first restls.yaml for dir: the platform
// directory it is, or the one found below it (a config root holding
// script-code-config/script-service-api.xml or
// script-handler-config/script-handler-api.xml), else the configuration
// files found one by one; with comments saying what each key does.
func Init(dir string) (string, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	l := findLayout(dir)
	var b strings.Builder
	b.WriteString("# restls project file: every restls command and the editor read it.\n")
	b.WriteString("# Paths are relative to this file; flags and editor settings override\n")
	b.WriteString("# its keys one by one. Keys and examples: docs/configuration.md.\n")
	b.WriteString("# Its schema: restls serve --http serves it at /v1/schema/restls.json;\n")
	b.WriteString("# the VS Code extension validates this file with it.\n\n")
	switch {
	case l.root != "":
		b.WriteString("# The platform's webforms directory: script-code-config/script-service-api.xml,\n")
		b.WriteString("# script-handler-config/script-handler-api.xml, config.xml, application.yml.\n")
		fmt.Fprintf(&b, "configRoot: %s\n", yamlString(l.root))
	case len(l.properties) > 0 || l.serviceXML != "" || l.handlerXML != "" || l.platformConfig != "":
		b.WriteString("# The configuration files, found one by one (no platform directory layout).\n")
		if len(l.properties) > 0 {
			b.WriteString("# Properties files with the scriptservice.api list, read in order.\n")
			b.WriteString("properties:\n")
			for _, p := range l.properties {
				fmt.Fprintf(&b, "  - %s\n", yamlString(p))
			}
		}
		if l.serviceXML != "" {
			b.WriteString("# Services of scriptService and validationScript scripts.\n")
			fmt.Fprintf(&b, "serviceXml: %s\n", yamlString(l.serviceXML))
		}
		if l.handlerXML != "" {
			b.WriteString("# Services of scriptTask scripts.\n")
			fmt.Fprintf(&b, "handlerXml: %s\n", yamlString(l.handlerXML))
		}
		if l.platformConfig != "" {
			b.WriteString("# Connection and read timeouts.\n")
			fmt.Fprintf(&b, "platformConfig: %s\n", yamlString(l.platformConfig))
		}
	default:
		b.WriteString("# No platform configuration was found below this directory: name the\n")
		b.WriteString("# platform's webforms directory (or the files: properties, serviceXml,\n")
		b.WriteString("# handlerXml, platformConfig).\n")
		b.WriteString("# configRoot: path/to/webforms\n")
	}
	b.WriteString("\n# Environments, each with the keys it changes; --env NAME picks one.\n")
	b.WriteString("# environments:\n#   test: {configRoot: envs/test/webforms}\n#   prod: {configRoot: envs/prod/webforms}\n# defaultEnvironment: test\n")
	b.WriteString("\n# Script kinds by path, after a script's first-line // restls-kind: comment;\n")
	b.WriteString("# the first matching glob wins, the default is scriptService.\n")
	if len(l.scriptDirs) > 0 {
		b.WriteString("scriptKinds:\n")
		for _, d := range l.scriptDirs {
			kind := config.ScriptTask
			if strings.HasPrefix(strings.ToLower(filepath.Base(d)), "validation") {
				kind = config.ValidationScript
			}
			fmt.Fprintf(&b, "  %s: %s\n", yamlString(filepath.ToSlash(d)+"/**"), kind)
		}
	} else {
		b.WriteString("# scriptKinds:\n#   \"**/tasks/**\": scriptTask\n#   \"**/validation/**\": validationScript\n")
	}
	b.WriteString("\n# OpenAPI descriptions for hints and checks, by serviceId: a path or a URL.\n")
	b.WriteString("# openapi:\n#   crm-customers: apis/crm.yaml\n")
	b.WriteString("\n# restls check's defaults; its flags override them.\n")
	b.WriteString("# check:\n#   include: [\"scripts/**/*.js\"]\n#   exclude: [\"**/vendor/**\"]\n#   strict: true\n#   disable: [openapi-unknown-field]\n")
	return b.String(), nil
}

// WriteInit writes Init's content to dir/restls.yaml, never over an
// existing file (ErrExists), and returns the file's path.
func WriteInit(dir string) (string, error) {
	text, err := Init(dir)
	if err != nil {
		return "", err
	}
	file := filepath.Join(dir, FileName)
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return file, fmt.Errorf("%w: %s is there already; edit it, or remove it first", ErrExists, file)
	}
	if err != nil {
		return file, err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return file, err
}

// findLayout walks dir (to initMaxDepth, leaving out what input.SkipDir
// leaves out, at most initMaxEntries entries) for the configuration.
// Paths are relative to dir and slash-separated; the shallowest (then
// first by name) of each wins.
func findLayout(dir string) layout {
	var l layout
	seen := 0
	has := func(p string) bool {
		fi, err := os.Stat(filepath.Join(dir, p))
		return err == nil && fi.Mode().IsRegular()
	}
	var roots []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		seen++
		if seen > initMaxEntries {
			return filepath.SkipAll
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && input.SkipDir(name) || strings.Count(rel, "/") >= initMaxDepth {
				return filepath.SkipDir
			}
			if has(filepath.Join(rel, config.ServiceXMLPath)) || has(filepath.Join(rel, config.HandlerXMLPath)) {
				roots = append(roots, rel)
			}
			lower := strings.ToLower(name)
			if rel != "." && (lower == "tasks" || strings.HasPrefix(lower, "validation")) && !strings.Contains(lower, ".") {
				l.scriptDirs = append(l.scriptDirs, rel)
			}
			return nil
		}
		switch name := d.Name(); {
		case slices.Contains(config.PropertiesNames, name):
			l.properties = append(l.properties, rel)
		case name == filepath.Base(config.ServiceXMLPath) && l.serviceXML == "":
			l.serviceXML = rel
		case name == filepath.Base(config.HandlerXMLPath) && l.handlerXML == "":
			l.handlerXML = rel
		}
		return nil
	})
	if len(roots) > 0 {
		slices.SortStableFunc(roots, func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") })
		l.root = roots[0]
		// Script directories inside the platform directory are its own.
		l.scriptDirs = slices.DeleteFunc(l.scriptDirs, func(d string) bool {
			return l.root != "." && (d == l.root || strings.HasPrefix(d, l.root+"/"))
		})
		return l
	}
	if len(l.properties) > 1 {
		// One properties file: the shallowest, as a config root reads one.
		slices.SortStableFunc(l.properties, func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") })
		l.properties = l.properties[:1]
	}
	if l.serviceXML != "" || l.handlerXML != "" {
		if d := filepath.Dir(firstOf(l.serviceXML, l.handlerXML)); has(filepath.Join(d, config.PlatformConfigPath)) {
			l.platformConfig = filepath.ToSlash(filepath.Join(d, config.PlatformConfigPath))
		}
	}
	return l
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// yamlString writes s as a YAML scalar: plain when that reads back the
// same, else double-quoted.
func yamlString(s string) string {
	if s != "" && !strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`\\ \t") && !strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "?") {
		return s
	}
	return fmt.Sprintf("%q", s)
}
