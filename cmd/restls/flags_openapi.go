package main

import (
	"path/filepath"
	"strings"

	"github.com/restls/restls/openapi"
	"github.com/restls/restls/workspace"
)

// openAPIFlags is the value of the repeatable --openapi flag of serve and
// check (flag.Value).
type openAPIFlags []workspace.APISource

// openAPIFlagHelp is --openapi's help text.
const openAPIFlagHelp = "attach an OpenAPI description (a file or http(s) URL) to a serviceId: `ID=PATH_OR_URL`; " +
	"PATH_OR_URL alone serves every service whose url starts with one of the description's servers (repeatable; the project file's openapi supplies the serviceIds it does not name)"

// String lists the descriptions as given.
func (f *openAPIFlags) String() string {
	if f == nil {
		return ""
	}
	parts := make([]string, len(*f))
	for i, s := range *f {
		parts[i] = s.Location
		if s.ServiceID != "" {
			parts[i] = s.ServiceID + "=" + s.Location
		}
	}
	return strings.Join(parts, ",")
}

// Set adds one --openapi value; a relative file is made absolute here,
// against the working directory it was given in.
func (f *openAPIFlags) Set(v string) error {
	s, err := workspace.ParseAPISource(v)
	if err != nil {
		return err
	}
	if !openapi.IsURL(s.Location) {
		if abs, err := filepath.Abs(s.Location); err == nil {
			s.Location = abs
		}
	}
	*f = append(*f, s)
	return nil
}
