package main

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/restls/restls/config"
	"github.com/restls/restls/openapi"
	"github.com/restls/restls/runtime/restclient"
	"github.com/restls/restls/workspace"
)

// testAnswerCheck is restls test's answer check (validateResponses):
// the descriptions of sources, loaded with their answers' schemas once,
// on the first answer to check, and attached to the registry of each
// script kind. A description that does not load is one line on stderr.
func testAnswerCheck(ctx context.Context, stderr io.Writer, snap *config.Snapshot, sources openAPIFlags) func(config.Kind, *restclient.Call) []restclient.ContractNote {
	if len(sources) == 0 {
		return nil
	}
	var (
		mu   sync.Mutex
		sets = map[*config.Registry]*openapi.Set{}
		docs []openapi.Doc
		once sync.Once
	)
	return func(k config.Kind, c *restclient.Call) []restclient.ContractNote {
		once.Do(func() {
			docs = workspace.AnswerDocs(ctx, sources, func(_ workspace.APISource, err error) {
				fmt.Fprintf(stderr, "restls test: %v; answers are not checked against it\n", err)
			})
		})
		reg := snap.For(k)
		mu.Lock()
		set, ok := sets[reg]
		if !ok {
			set = openapi.Attach(reg, docs)
			sets[reg] = set
		}
		mu.Unlock()
		return workspace.CheckCall(set, reg, c)
	}
}
