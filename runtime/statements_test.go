package runtime

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
)

// reached is an Observer that keeps the statements it hears.
type reached struct {
	at []string
}

func (l *reached) CallMade(int, *restclient.Call)     {}
func (l *reached) CallAnswered(int, *restclient.Call) {}
func (l *reached) Log(dryrun.LogEntry)                {}
func (l *reached) Done(*dryrun.Result)                {}
func (l *reached) Statement(line, col int)            { l.at = append(l.at, fmt.Sprintf("%d:%d", line, col)) }

// TestStatementsReached: with Statements, the observer hears each
// statement as it is reached, at its line and column, loops once per
// turn, branches not taken never, function declarations not at all; the
// result is what it is without them ("use strict" still holds).
func TestStatementsReached(t *testing.T) {
	src := "\"use strict\";\n" + // 1
		"var n = 0;\n" + // 2
		"function add(x) {\n" + // 3
		"  return n + x;\n" + // 4
		"}\n" + // 5
		"for (var i = 0; i < 2; i++) n = add(1);\n" + // 6
		"if (n > 5) n = 0; else { n = n * 10; }\n" + // 7
		"try { undeclared = 1; } catch (e) { n++; }\n" + // 8
		"return n;" // 9
	obs := &reached{}
	res := Run(context.Background(), Options{Source: src, Observer: obs, Statements: true})
	if res.Error != nil || string(res.Result) != "21" {
		t.Fatalf("result %s, error %+v", res.Result, res.Error)
	}
	want := []string{"2:1", "6:1", "6:29", "4:3", "6:29", "4:3", "7:1", "7:26", "8:1", "8:7", "8:37", "9:1"}
	if !slices.Equal(obs.at, want) {
		t.Errorf("statements reached %q, want %q", obs.at, want)
	}

	plain := &reached{}
	res = Run(context.Background(), Options{Source: src, Observer: plain})
	if string(res.Result) != "21" || len(plain.at) != 0 {
		t.Errorf("without Statements: result %s, statements %q", res.Result, plain.at)
	}
}

// nothing is an Observer that does nothing: what the instrumentation
// itself costs, not what an observer does with it.
type nothing struct{}

func (nothing) CallMade(int, *restclient.Call)     {}
func (nothing) CallAnswered(int, *restclient.Call) {}
func (nothing) Log(dryrun.LogEntry)                {}
func (nothing) Done(*dryrun.Result)                {}
func (nothing) Statement(int, int)                 {}

// BenchmarkStatements is the cost of statements reached
// (docs/decisions.md): a loop of 10,000 turns of two statements, run
// without an observer, with one that does not ask for statements, and
// with one that does (the program instrumented).
func BenchmarkStatements(b *testing.B) {
	src := "var s = 0;\nfor (var i = 0; i < 10000; i++) {\n  s += i;\n  if (s < 0) s = 0;\n}\nreturn s;"
	for _, bc := range []struct {
		name string
		opts Options
	}{
		{"none", Options{Source: src}},
		{"observer", Options{Source: src, Observer: nothing{}}},
		{"statements", Options{Source: src, Observer: nothing{}, Statements: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if res := Run(context.Background(), bc.opts); string(res.Result) != "49995000" {
					b.Fatalf("result %s %+v", res.Result, res.Error)
				}
			}
		})
	}
}
