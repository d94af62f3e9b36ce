package main

import (
	"flag"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

// registerSources adds the configuration source flags to fs, each
// setting its field of *src and appending itself as given to *given
// (what a child restls must be given to read the same configuration).
func registerSources(fs *flag.FlagSet, src *config.Sources, given *[]string) {
	for _, s := range workspace.Settings() {
		if s.Source == nil {
			continue
		}
		set, name := s.Source, s.Flag
		fs.Func(name, s.Help, func(v string) error {
			set(src, v)
			*given = append(*given, "--"+name, v)
			return nil
		})
	}
}
