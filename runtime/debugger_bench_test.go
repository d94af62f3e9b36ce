package runtime

import (
	"context"
	"strings"
	"testing"

	"github.com/restls/restls/runtime/dryrun"
)

// debugging is an observer as a debugger is one, that never stops.
type debugging struct{ nothing }

func (debugging) StatementStack(int, int, dryrun.Paused)    {}
func (debugging) Exception(dryrun.Exception, dryrun.Paused) {}

// BenchmarkDebugLong is a debug run of a script of 100,000 statements
// (issue 35's hostile input) that never stops: the instrumentation's
// cost on a long flat script.
func BenchmarkDebugLong(b *testing.B) {
	src := "var x = 0;\n" + strings.Repeat("x = x + 1;\n", 100000) + "return x;\n"
	for _, bc := range []struct {
		name string
		opts Options
	}{
		{"plain", Options{Source: src}},
		{"debug", Options{Source: src, Observer: debugging{}, Statements: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if res := Run(context.Background(), bc.opts); string(res.Result) != "100000" {
					b.Fatalf("result %s %+v", res.Result, res.Error)
				}
			}
		})
	}
}
