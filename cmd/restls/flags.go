package main

import (
	"flag"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

// registerSources adds the configuration source flags to fs, each
// setting its field of *src.
func registerSources(fs *flag.FlagSet, src *config.Sources) {
	for _, s := range workspace.Settings() {
		if s.Source == nil {
			continue
		}
		set := s.Source
		fs.Func(s.Flag, s.Help, func(v string) error {
			set(src, v)
			return nil
		})
	}
}
