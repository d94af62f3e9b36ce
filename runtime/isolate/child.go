package isolate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/restls/restls/config"
	scriptrt "github.com/restls/restls/runtime"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
)

// ChildArg, as the first and only argument of the restls binary, makes
// the process a dry run's child: cmd/restls hands it to ChildMain before
// it parses any command line. It is no command of the CLI (help does not
// list it) and takes no flags: everything comes in the ChildRequest.
const ChildArg = "__restls-dry-run-child"

// ChildRequest is what a dry run's child reads on its stdin, as one JSON
// object: everything the run needs, as the parent's snapshot has it.
// Nothing of it is on a command line or on disk.
type ChildRequest struct {
	// Sources are the configuration files of the snapshot the script is
	// run against, which the child loads; or, when they name a
	// registryUrl, Services are the registry.
	Sources  config.Sources `json:"sources"`
	Services []Service      `json:"services,omitempty"`
	Kind     config.Kind    `json:"kind"`
	// Text is the script, unsaved edits included.
	Text string `json:"text"`
	// Input is context.input as JSON; empty means {}.
	Input json.RawMessage `json:"input,omitempty"`
	// Mock is a pasted fixture document (YAML or JSON), answering calls
	// as restclient.PastedMocks; nil for none.
	Mock *string `json:"mock,omitempty"`
	// MockFile and RecordFile are fixture files to answer calls from and
	// to write live answers to (Request's).
	MockFile   string `json:"mockFile,omitempty"`
	RecordFile string `json:"recordFile,omitempty"`
	Limits     Limits `json:"limits"`
	// AllowServices, when not nil, are the only serviceIds the script may
	// call (Request's).
	AllowServices []string `json:"allowServices,omitempty"`
}

// Service is one service of a registry read from a registryUrl, as the
// registry backend serves it: no credentials.
type Service struct {
	ID          string `json:"serviceId"`
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
}

// remoteServices are reg's usable services as the child's request holds
// them: serviceId, URL and description, never their credentials.
func remoteServices(reg *config.Registry) []Service {
	out := make([]Service, 0, len(reg.IDs()))
	for _, id := range reg.IDs() {
		s, _ := reg.Service(id)
		out = append(out, Service{ID: id, URL: s.URL, Description: s.Description})
	}
	return out
}

// registry is the registry req names: its Services for a registryUrl
// snapshot (as remote builds one: default timeouts), else its Sources
// loaded.
func (req *ChildRequest) registry(kind config.Kind) *config.Registry {
	if req.Sources.RegistryURL == "" {
		return config.Load(req.Sources).For(kind)
	}
	services := make([]config.Service, len(req.Services))
	for i, s := range req.Services {
		services[i] = config.Service{ID: s.ID, URL: s.URL, RawURL: s.URL, Description: s.Description}
	}
	return config.NewRegistry(kind, services, config.DefaultTimeouts, nil)
}

// Limits bound one child's run.
type Limits struct {
	// Timeout is the script's time limit (the parent kills the child
	// after it and a grace period).
	Timeout time.Duration `json:"timeout"`
	// MaxMemory is how much the child may grow while the script runs.
	MaxMemory int64 `json:"maxMemory"`
	// MaxResult bounds the result's JSON; a larger one is replaced by a
	// CodeResultTooLarge result.
	MaxResult int `json:"maxResult"`
}

// mode is how req's calls are answered (Request.Mode).
func (req *ChildRequest) mode() string {
	return modeOf(req.Mock != nil, req.MockFile, req.RecordFile)
}

// maxRequest bounds what a child reads as its request: a script, an input
// and fixtures of 16 MiB each (input.Script, input.Input, input.Fixtures)
// and room for the rest.
const maxRequest = 3*16<<20 + 1<<20

// Messages of a run that cannot start name the file and the line (the
// fixtures' own errors do), never a restls run flag: the user is in an
// editor or on the designer page.

// ChildMain runs the one dry run its ChildRequest on stdin asks for and
// writes one dryrun.Result to stdout as JSON; it returns the exit status
// (0 whenever it wrote a result). A run it cannot start (no configuration,
// fixtures that do not parse) is a result too, with the error code
// CodeRunnerFailed and a message saying why. Its log lines (warnings: a
// token refused, a configuration error) go to stderr, which the parent
// keeps for its log when the child ends without a result.
func ChildMain(stdin io.Reader, stdout, stderr io.Writer) int {
	var req ChildRequest
	dec := json.NewDecoder(io.LimitReader(stdin, maxRequest))
	if err := dec.Decode(&req); err != nil {
		fmt.Fprintf(stderr, "restls: this process is a dry run's child, started by restls serve with a request on stdin: %v\n", err)
		return 2
	}
	if req.Limits.MaxResult <= 0 {
		req.Limits.MaxResult = MaxResult
	}
	res := childRun(&req, stderr, func(res *dryrun.Result) {
		// The hard stop: memory reached its limit before the interrupt
		// took effect. The result is written here and the process ends.
		writeResult(stdout, res, &req)
		os.Exit(0)
	})
	if err := writeResult(stdout, res, &req); err != nil {
		fmt.Fprintf(stderr, "restls: write the dry run's result: %v\n", err)
		return 2
	}
	return 0
}

// childRun runs req in this process; hardStop (nil in tests) ends the
// process at the memory limit.
func childRun(req *ChildRequest, stderr io.Writer, hardStop func(*dryrun.Result)) *dryrun.Result {
	kind, err := config.ParseKind(string(req.Kind))
	if err != nil {
		return failed(err.Error())
	}
	var mock *restclient.Mock
	switch {
	case req.Mock != nil:
		if mock, err = restclient.ParseMock(restclient.PastedMocks, []byte(*req.Mock)); err != nil {
			return failed(err.Error())
		}
	case req.MockFile != "":
		if mock, err = restclient.LoadMock(req.MockFile); err != nil {
			return failed(err.Error())
		}
	}
	var rec *restclient.Recorder
	if req.RecordFile != "" {
		if rec, err = restclient.NewRecorder(restclient.RecordOptions{File: req.RecordFile}); err != nil {
			return failed(err.Error())
		}
	}
	reg := req.registry(kind)
	if !reg.Loaded {
		return failed(noConfiguration)
	}
	logger := zap.New(zapcore.NewCore(zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig()), zapcore.AddSync(stderr), zapcore.WarnLevel))
	defer func() { _ = logger.Sync() }()
	var stop func(string)
	if hardStop != nil {
		if err := scriptrt.LimitProcessMemory(req.Limits.MaxMemory); err != nil {
			logger.Warn("no OS memory limit for this run; the watchdog still applies", zap.Error(err))
		}
		stop = func(msg string) { hardStop(scriptrt.MemoryLimitResult(msg)) }
	}
	res := scriptrt.Run(context.Background(), scriptrt.Options{
		Source:         req.Text,
		Filename:       "-",
		Kind:           kind,
		Registry:       reg,
		Mock:           mock,
		Trace:          true, // the preview shows timing phases and wire blocks
		Record:         rec,
		Input:          req.Input,
		Timeout:        req.Limits.Timeout,
		Logger:         logger,
		MaxMemory:      req.Limits.MaxMemory,
		MemoryHardStop: stop,
		AllowServices:  req.AllowServices,
	})
	if rec != nil {
		if err := rec.Save(); err != nil {
			// The run happened; only its fixtures are not written. The
			// user reads it with the result, as a console error would be.
			res.Logs = append(res.Logs, dryrun.LogEntry{Level: "error", Message: "restls: " + err.Error(), AfterCalls: len(res.Calls)})
		}
	}
	return res
}

// noConfiguration is the message of a run with no configuration to load.
const noConfiguration = config.NoConfiguration

// failed is the result of a run that could not start, saying why.
func failed(msg string) *dryrun.Result {
	return crashed(CodeRunnerFailed, "Error", msg)
}

// writeResult writes res with req's mode as one JSON object, or a
// CodeResultTooLarge result when that is more than req's MaxResult.
func writeResult(w io.Writer, res *dryrun.Result, req *ChildRequest) error {
	res.Mode = req.mode()
	raw, err := json.Marshal(res)
	if err != nil {
		return err
	}
	if len(raw) > req.Limits.MaxResult {
		big := tooLarge(req.Limits.MaxResult)
		big.Mode = res.Mode
		if raw, err = json.Marshal(big); err != nil {
			return err
		}
	}
	_, err = w.Write(raw)
	return err
}

// tooLarge is the result of a run whose result passed MaxResult.
func tooLarge(limit int) *dryrun.Result {
	return crashed(CodeResultTooLarge, "RangeError", fmt.Sprintf("the run's result, calls and logs came to more than %s "+
		"of JSON, more than the server keeps of a run: return a smaller value or log less (restls run on the command line prints it whole)",
		scriptrt.FormatSize(int64(limit))))
}
