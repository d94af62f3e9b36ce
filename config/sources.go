package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Well-known locations below a config root (the platform's webforms
// directory); see docs/configuration.md.
const (
	ServiceXMLPath     = "script-code-config/script-service-api.xml"
	HandlerXMLPath     = "script-handler-config/script-handler-api.xml"
	PlatformConfigPath = "config.xml"
)

// PropertiesNames are the properties files looked for in a config root, in
// reading order.
var PropertiesNames = []string{"application.yml", "application.yaml", "application.properties"}

// Sources says where the configuration is read from. Empty fields are
// filled by Resolve.
type Sources struct {
	ConfigRoot     string   `json:"configRoot,omitempty"`
	Properties     []string `json:"properties,omitempty"`
	ServiceXML     string   `json:"serviceXml,omitempty"`
	HandlerXML     string   `json:"handlerXml,omitempty"`
	PlatformConfig string   `json:"platformConfig,omitempty"`
	// RegistryURL, when set, names a restls backend whose hints map replaces
	// the files (package remote loads it; Load itself ignores it).
	RegistryURL string `json:"registryUrl,omitempty"`
}

// Environment variables read by FromEnv; RESTLS_PROPERTIES holds a list
// separated by the OS path-list separator (":" on Unix).
const (
	EnvConfigRoot     = "RESTLS_CONFIG_ROOT"
	EnvProperties     = "RESTLS_PROPERTIES"
	EnvServiceXML     = "RESTLS_SERVICE_XML"
	EnvHandlerXML     = "RESTLS_HANDLER_XML"
	EnvPlatformConfig = "RESTLS_PLATFORM_CONFIG"
)

// FromEnv returns the sources named by RESTLS_* environment variables.
func FromEnv(getenv func(string) string) Sources {
	var s Sources
	s.ConfigRoot = getenv(EnvConfigRoot)
	if p := getenv(EnvProperties); p != "" {
		for _, f := range filepath.SplitList(p) {
			if f != "" {
				s.Properties = append(s.Properties, f)
			}
		}
	}
	s.ServiceXML = getenv(EnvServiceXML)
	s.HandlerXML = getenv(EnvHandlerXML)
	s.PlatformConfig = getenv(EnvPlatformConfig)
	return s
}

// Override returns s with every field that o sets replaced by o's.
func (s Sources) Override(o Sources) Sources {
	if o.ConfigRoot != "" {
		s.ConfigRoot = o.ConfigRoot
	}
	if len(o.Properties) > 0 {
		s.Properties = append([]string(nil), o.Properties...)
	}
	if o.ServiceXML != "" {
		s.ServiceXML = o.ServiceXML
	}
	if o.HandlerXML != "" {
		s.HandlerXML = o.HandlerXML
	}
	if o.PlatformConfig != "" {
		s.PlatformConfig = o.PlatformConfig
	}
	if o.RegistryURL != "" {
		s.RegistryURL = o.RegistryURL
	}
	return s
}

// IsZero reports whether no source is named at all.
func (s Sources) IsZero() bool {
	return s.ConfigRoot == "" && len(s.Properties) == 0 && s.ServiceXML == "" &&
		s.HandlerXML == "" && s.PlatformConfig == "" && s.RegistryURL == ""
}

// NoConfiguration is what a command or a dry run says when no
// configuration source is found at all: the ways to name one, the
// project file that restls init writes first.
const NoConfiguration = "no service configuration found: run restls init in the project to write restls.yaml, which every command reads; or pass --config-root (or --properties, --service-xml, --handler-xml), or set RESTLS_CONFIG_ROOT"

// CheckRoot reports a config root that was named (by a flag, a variable
// or a setting) but is not a directory, with what to do. A root nobody
// named (the current directory) is never an error.
func (s Sources) CheckRoot() error {
	if s.ConfigRoot == "" || s.RegistryURL != "" {
		return nil
	}
	fi, err := os.Stat(s.ConfigRoot)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("config root %s does not exist: name the platform's webforms directory (the one holding %s and %s)", s.ConfigRoot, ServiceXMLPath, PropertiesNames[0])
	case err != nil:
		return fmt.Errorf("config root %s cannot be read: %v", s.ConfigRoot, err)
	case !fi.IsDir():
		return fmt.Errorf("config root %s is a file, not a directory: name the platform's webforms directory, or name the file with --properties, --service-xml, --handler-xml or --platform-config", s.ConfigRoot)
	}
	return nil
}

// Equal reports whether s and o name the same sources, field by field (an
// empty and a nil Properties list are the same). A session whose sources
// equal the server's shares the server's registry.
func (s Sources) Equal(o Sources) bool {
	return s.ConfigRoot == o.ConfigRoot && slices.Equal(s.Properties, o.Properties) && s.ServiceXML == o.ServiceXML &&
		s.HandlerXML == o.HandlerXML && s.PlatformConfig == o.PlatformConfig && s.RegistryURL == o.RegistryURL
}

// location is one file to read and whether it was named explicitly (a
// missing explicit file is an error; a missing looked-for file is not).
type location struct {
	path     string
	explicit bool
}

type resolved struct {
	properties     []location
	serviceXML     location
	handlerXML     location
	platformConfig location
	root           string
}

// resolve fills the looked-for locations: a config root (or, when nothing
// is named at all, the current directory) supplies every file not named
// explicitly. With explicit files and no root, only those files are read.
func (s Sources) resolve() resolved {
	var r resolved
	root := s.ConfigRoot
	if s.IsZero() {
		root = "."
	}
	r.root = root
	for _, p := range s.Properties {
		r.properties = append(r.properties, location{p, true})
	}
	if len(s.Properties) == 0 && root != "" {
		for _, n := range PropertiesNames {
			r.properties = append(r.properties, location{filepath.Join(root, n), false})
		}
	}
	pick := func(explicit, rel string) location {
		if explicit != "" {
			return location{explicit, true}
		}
		if root != "" {
			return location{filepath.Join(root, rel), false}
		}
		return location{}
	}
	r.serviceXML = pick(s.ServiceXML, ServiceXMLPath)
	r.handlerXML = pick(s.HandlerXML, HandlerXMLPath)
	r.platformConfig = pick(s.PlatformConfig, PlatformConfigPath)
	return r
}

// Files lists every configuration file the sources may read, for watching.
func (s Sources) Files() []string {
	if s.RegistryURL != "" {
		return nil // a remote registry reads no files
	}
	r := s.resolve()
	var out []string
	for _, l := range r.properties {
		out = append(out, l.path)
	}
	for _, l := range []location{r.serviceXML, r.handlerXML, r.platformConfig} {
		if l.path != "" {
			out = append(out, l.path)
		}
	}
	return out
}
