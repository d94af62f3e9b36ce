package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"

	"github.com/restls/restls/config"
	"github.com/restls/restls/runtime/restclient"
)

// probeParallel is how many services are probed at once: a probe mostly
// waits (for a token endpoint, a connection or a timeout), and probing a
// registry one by one would add up every timeout.
const probeParallel = 4

type probeJSON struct {
	Kind   config.Kind               `json:"kind"`
	OK     bool                      `json:"ok"`
	Probes []*restclient.ProbeResult `json:"probes"`
}

// probeServices runs restls services --probe: it probes ids (every usable
// service when none is given) of reg and prints the results, as text or
// as one JSON object. Exit status 1 when any probe fails, or when there
// is nothing to probe.
func probeServices(env *cliEnv, reg *config.Registry, ids []string, asJSON bool) int {
	for _, id := range ids {
		if strings.HasPrefix(id, "-") {
			// The flag package stops at the first serviceId.
			fmt.Fprintf(env.stderr, "restls services: %s comes after a serviceId; put the flags before --probe's serviceIds (restls services --json --probe ID...)\n", id)
			return 2
		}
	}
	if len(ids) == 0 {
		ids = reg.IDs()
	}
	if len(ids) == 0 {
		fmt.Fprintf(env.stderr, "restls services --probe: no usable service for %s: %s (restls services --kind %s lists the diagnostics)\n",
			reg.Kind, reg.HintState().Message(), reg.Kind)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	client := restclient.New(restclient.Options{})
	results := make([]*restclient.ProbeResult, len(ids))
	sem := make(chan struct{}, probeParallel)
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = client.Probe(ctx, reg, id)
		})
	}
	wg.Wait()
	failed := 0
	for _, r := range results {
		if !r.OK {
			failed++
		}
	}
	if asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(probeJSON{Kind: reg.Kind, OK: failed == 0, Probes: results}); err != nil {
			fmt.Fprintf(env.stderr, "restls services: %v\n", err)
			return 1
		}
	} else {
		printProbes(env.stdout, reg, results, failed)
	}
	if failed > 0 {
		return 1
	}
	return 0
}

// printProbes writes the text report: a line per service, a line per
// step, the message of a failure when the failed step does not say it.
func printProbes(w io.Writer, reg *config.Registry, results []*restclient.ProbeResult, failed int) {
	fmt.Fprintf(w, "Probed %s for %s (connection timeout %d ms, read timeout %d ms)\n",
		count(len(results), "service", "services"), reg.Kind, reg.Timeouts.Connection.Default, reg.Timeouts.Read.Default)
	for _, r := range results {
		verdict := "ok"
		if !r.OK {
			verdict = "FAILED"
		}
		fmt.Fprintf(w, "\n%-6s  %s  %s  (%s)  %s\n", verdict, r.ServiceID, r.URL, r.Auth, probeMs(r.TotalMs))
		said := false
		for _, s := range r.Steps {
			ms := "-"
			if s.Outcome != restclient.ProbeSkipped {
				ms = probeMs(s.Ms)
			}
			fmt.Fprintf(w, "        %-8s %-8s %10s  %s\n", s.Step, s.Outcome, ms, oneLine(s.Detail))
			said = said || s.Outcome == restclient.ProbeFailed && s.Detail == r.Message
		}
		if !r.OK && !said {
			fmt.Fprintf(w, "        %s\n", oneLine(r.Message))
		}
	}
	if failed == 0 {
		fmt.Fprintf(w, "\nAll %s answered.\n", count(len(results), "service", "services"))
	} else {
		fmt.Fprintf(w, "\n%d of %s failed.\n", failed, count(len(results), "service", "services"))
	}
}

func probeMs(ms float64) string { return fmt.Sprintf("%.1f ms", ms) }

// oneLine keeps a detail on its line: a server's text may hold line
// breaks or control characters.
func oneLine(s string) string {
	return restclient.EscapeControl(strings.ReplaceAll(s, "\n", " "))
}
