package history

import (
	"github.com/restls/restls/config"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
)

// WriteFixtures writes the answers of a kept run into the fixture file,
// as `restls run --record FILE` writes a live run's (the same recorder:
// restclient.Recorder.AddTrace): the fixtures of the same calls are
// replaced, the others stay. reg is the registry the script sees (for the
// services' addresses). It returns how many calls were written and how
// many had no answer to write (a transport error, or an answer from a
// fixture).
func WriteFixtures(file string, reg *config.Registry, run *dryrun.Result) (written, skipped int, err error) {
	rec, err := restclient.NewRecorder(restclient.RecordOptions{File: file})
	if err != nil {
		return 0, 0, err
	}
	for _, c := range run.Calls {
		ok, err := rec.AddTrace(reg, c)
		if err != nil {
			return 0, 0, err
		}
		if ok {
			written++
		} else {
			skipped++
		}
	}
	if err := rec.Save(); err != nil {
		return 0, 0, err
	}
	return written, skipped, nil
}
