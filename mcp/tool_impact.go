package mcp

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/restls/restls/check"
)

// ImpactIn is the impact tool's input.
type ImpactIn struct {
	Since string `json:"since" jsonschema:"the git revision (a branch, a tag, HEAD~1) whose configuration files to compare with the working tree's"`
}

// ImpactOut is the impact tool's answer: restls check --since's since-*
// findings.
type ImpactOut struct {
	Since    string    `json:"since"`
	Scripts  int       `json:"scripts"`
	Findings []Finding `json:"findings"`
}

// Finding is a call a configuration change breaks or changes.
type Finding struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Kind     string `json:"kind,omitempty"`
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

func (s *Server) impact(ctx context.Context, _ *sdk.CallToolRequest, in ImpactIn) (*sdk.CallToolResult, ImpactOut, error) {
	out := ImpactOut{Since: in.Since, Findings: []Finding{}}
	if in.Since == "" || len(in.Since) > 256 || strings.HasPrefix(in.Since, "-") {
		return nil, out, errors.New("give since: a git revision (a branch, a tag, HEAD~1), not an option")
	}
	rep, err := s.o.Impact(ctx, in.Since)
	if err != nil {
		return nil, out, err
	}
	out.Scripts = rep.Scripts
	for _, f := range rep.Findings {
		if !strings.HasPrefix(f.Code, "since-") {
			continue
		}
		file := f.File
		if !filepath.IsAbs(file) {
			if abs, err := filepath.Abs(file); err == nil {
				file = abs
			}
		}
		out.Findings = append(out.Findings, Finding{File: s.rel(file), Line: f.Line, Column: f.Column, Kind: string(f.Kind), Code: f.Code, Severity: f.Severity, Message: f.Message})
		if len(out.Findings) == s.o.Limits.Items {
			break
		}
	}
	return nil, out, nil
}

// Impact is the check of the project's scripts against the configuration
// as git revision ref has it (restls check --since REF): cmd/restls gives
// it, with the project's workspace, include and exclude globs.
type Impact func(ctx context.Context, ref string) (*check.Report, error)
