package history

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/restls/restls/input"
	"github.com/restls/restls/runtime/dryrun"
	"github.com/restls/restls/runtime/restclient"
)

// Keep is how many runs of one script are kept; the oldest go first.
const Keep = 50

// MaxEntry is the largest entry kept, in bytes of JSON (input.History's
// limit). A larger run is kept with its bodies cut (Entry.Trimmed).
const MaxEntry = 512 << 10

// keptBody is the longest request or response body kept whole when a run
// is too large for MaxEntry.
const keptBody = 4 << 10

// Version is the format of an entry's JSON.
const Version = 1

// Sources of an entry.
const (
	SourceEditor   = "editor"
	SourceDesigner = "designer"
	SourceCLI      = "cli"
)

// ErrTooLarge is Add's error for a run that is larger than MaxEntry even
// without its bodies.
var ErrTooLarge = errors.New("the run is too large to keep in the history")

// Entry is one kept run.
type Entry struct {
	Version int `json:"version"`
	// Script is the script's file path (a URI for a document that is
	// not a file): the key its runs are kept under.
	Script string    `json:"script"`
	Time   time.Time `json:"time"`
	// Source is SourceEditor, SourceDesigner or SourceCLI.
	Source string `json:"source"`
	// Trimmed reports that bodies were cut to keep the entry under
	// MaxEntry: a diff of them says so rather than show a change.
	Trimmed bool           `json:"trimmed,omitempty"`
	Run     *dryrun.Result `json:"run"`
	// DurationMs is the whole run's wall time.
	DurationMs float64 `json:"durationMs,omitempty"`
	// Input is the run's context.input (a replay runs with it), when it
	// was at most MaxInput bytes.
	Input json.RawMessage `json:"input,omitempty"`
}

// MaxInput bounds the input an entry keeps.
const MaxInput = 64 << 10

// WithInput is e keeping input, unless it is longer than MaxInput.
func (e *Entry) WithInput(input json.RawMessage) *Entry {
	if len(input) <= MaxInput {
		e.Input = input
	}
	return e
}

// Store keeps entries per script. Implementations are safe for
// concurrent use.
type Store interface {
	// Add keeps e, dropping the oldest runs of e.Script past Keep.
	Add(e *Entry) error
	// Last returns up to n runs of script, the newest first.
	Last(script string, n int) ([]*Entry, error)
}

// NewEntry makes the entry of res, a run of script, now, bounded to
// MaxEntry: it shares nothing with res that Add could change.
func NewEntry(script, source string, res *dryrun.Result) *Entry {
	return &Entry{Version: Version, Script: script, Time: time.Now().UTC(), Source: source, Run: res, DurationMs: res.DurationMs}
}

// encode returns e's JSON within MaxEntry, cutting bodies when it must.
// Bodies are kept as they were sent (input.TextJSON: no HTML escapes).
func encode(e *Entry) ([]byte, error) {
	data, err := input.TextJSON(e)
	if err != nil {
		return nil, err
	}
	for _, limit := range []int{keptBody, 0} {
		if len(data) <= MaxEntry {
			return data, nil
		}
		cp := *e
		cp.Trimmed = true
		cp.Run = trimmed(e.Run, limit)
		if data, err = input.TextJSON(&cp); err != nil {
			return nil, err
		}
	}
	if len(data) <= MaxEntry {
		return data, nil
	}
	return nil, fmt.Errorf("%w (%d KiB without bodies, the limit is %d KiB)", ErrTooLarge, len(data)>>10, MaxEntry>>10)
}

// trimmed is a copy of r whose bodies longer than limit bytes are replaced
// by a note saying their size.
func trimmed(r *dryrun.Result, limit int) *dryrun.Result {
	cp := *r
	cp.Calls = make([]*restclient.Call, len(r.Calls))
	cut := func(b json.RawMessage) json.RawMessage {
		if len(b) <= limit {
			return b
		}
		note, _ := json.Marshal("(" + strconv.Itoa(len(b)) + " bytes, not kept in the history)")
		return note
	}
	for i, c := range r.Calls {
		cc := *c
		cc.RequestBody = cut(c.RequestBody)
		if rb := cut(c.ResponseBody); len(rb) != len(c.ResponseBody) {
			cc.ResponseBody, cc.BodyTruncated = rb, true
		}
		// The wire and curl blocks repeat what the call shows.
		cc.Wire, cc.Curl = c.WireBlocks(), c.CurlCommand()
		if limit == 0 {
			cc.Wire, cc.Curl = nil, ""
		}
		cp.Calls[i] = &cc
	}
	if len(cp.Result) > limit && limit == 0 {
		cp.Result = cut(r.Result)
	}
	return &cp
}

// Decode reads an entry's JSON. It also takes what `restls run --json`
// prints (a bare result), as an entry without a time.
func Decode(data []byte) (*Entry, error) {
	var probe struct {
		Version int             `json:"version"`
		Run     json.RawMessage `json:"run"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, err
	}
	if probe.Version == 0 && probe.Run == nil {
		var res dryrun.Result
		if err := json.Unmarshal(data, &res); err != nil {
			return nil, err
		}
		return &Entry{Run: &res}, nil
	}
	if probe.Version != Version {
		return nil, fmt.Errorf("history entry version %d: this restls reads version %d", probe.Version, Version)
	}
	var e Entry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, err
	}
	if e.Run == nil {
		return nil, errors.New("history entry without a run")
	}
	return &e, nil
}

// DefaultDir is where editors and `restls run --save` keep runs:
// os.UserCacheDir()/restls/history.
func DefaultDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for the run history: %w", err)
	}
	return filepath.Join(dir, "restls", "history"), nil
}

// Dir is a Store on disk: one directory per script under Root (named by
// a hash of the script's path), one file per run named by its time.
type Dir struct {
	Root string

	mu sync.Mutex // orders Adds in this process; files are written whole
}

// scriptDir is the directory of script's runs.
func (d *Dir) scriptDir(script string) string {
	h := sha256.Sum256([]byte(script))
	return filepath.Join(d.Root, hex.EncodeToString(h[:16]))
}

// Add writes e (0600, in a directory it makes 0700) and removes the oldest runs of
// its script past Keep.
func (d *Dir) Add(e *Entry) error {
	data, err := encode(e)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	dir := d.scriptDir(e.Script)
	if err := mkdirPrivate(dir); err != nil {
		return fmt.Errorf("run history: %w", err)
	}
	name := strconv.FormatInt(e.Time.UnixNano(), 10)
	for i := 0; ; i++ {
		file := filepath.Join(dir, fmt.Sprintf("%020s-%02d.json", name, i))
		f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && i < 99 {
			continue
		}
		if err != nil {
			return fmt.Errorf("run history: %w", err)
		}
		_, werr := f.Write(data)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(file)
			return fmt.Errorf("run history: %w", werr)
		}
		break
	}
	names, err := d.names(dir)
	if err != nil {
		return err
	}
	for len(names) > Keep {
		os.Remove(filepath.Join(dir, names[0]))
		names = names[1:]
	}
	return nil
}

// mkdirPrivate makes dir and its missing parents, each 0700 whatever the
// umask. A directory that exists keeps its mode, whoever made it: Root
// may be shared (RESTLS_HISTORY=/tmp made /tmp 0700 for the whole
// machine when restls ran as root).
func mkdirPrivate(dir string) error {
	var missing []string
	for d := filepath.Clean(dir); ; {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("%s is not a directory", d)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		missing = append(missing, d)
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	for i := len(missing) - 1; i >= 0; i-- {
		err := os.Mkdir(missing[i], 0o700)
		switch {
		case errors.Is(err, fs.ErrExist):
			continue // made meanwhile, by another run: its maker set its mode
		case err != nil:
			return err
		}
		if err := os.Chmod(missing[i], 0o700); err != nil {
			return err
		}
	}
	return nil
}

// names lists the entry files in dir, the oldest first.
func (d *Dir) names(dir string) ([]string, error) {
	list, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("run history: %w", err)
	}
	var names []string
	for _, de := range list {
		if de.Type().IsRegular() && strings.HasSuffix(de.Name(), ".json") {
			names = append(names, de.Name())
		}
	}
	slices.Sort(names) // zero-padded times
	return names, nil
}

// Last reads up to n runs of script, the newest first. An entry that
// cannot be read (cut, edited, too large) is skipped.
func (d *Dir) Last(script string, n int) ([]*Entry, error) {
	dir := d.scriptDir(script)
	names, err := d.names(dir)
	if err != nil {
		return nil, err
	}
	var out []*Entry
	for i := len(names) - 1; i >= 0 && len(out) < n; i-- {
		data, err := input.ReadFile(filepath.Join(dir, names[i]), input.History)
		if err != nil {
			continue
		}
		e, err := Decode(data)
		if err != nil || e.Script != script {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// MemoryBytes is how much a Memory keeps in all, in bytes of JSON; past
// it the oldest runs of any script go first.
const MemoryBytes = 8 << 20

// Memory is a Store for one designer session: nothing is written to disk.
type Memory struct {
	mu    sync.Mutex
	runs  []memEntry // the oldest first
	bytes int
}

type memEntry struct {
	script string
	data   []byte
}

// NewMemory returns an empty Memory.
func NewMemory() *Memory { return &Memory{} }

// Add keeps e's JSON (bounded as on disk).
func (m *Memory) Add(e *Entry) error {
	data, err := encode(e)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.runs = append(m.runs, memEntry{script: e.Script, data: data})
	m.bytes += len(data)
	count := 0
	for i := len(m.runs) - 1; i >= 0; i-- {
		if m.runs[i].script != e.Script {
			continue
		}
		if count++; count > Keep {
			m.bytes -= len(m.runs[i].data)
			m.runs = slices.Delete(m.runs, i, i+1)
		}
	}
	for m.bytes > MemoryBytes && len(m.runs) > 1 {
		m.bytes -= len(m.runs[0].data)
		m.runs = m.runs[1:]
	}
	return nil
}

// Last returns up to n runs of script, the newest first.
func (m *Memory) Last(script string, n int) ([]*Entry, error) {
	m.mu.Lock()
	var raw [][]byte
	for i := len(m.runs) - 1; i >= 0 && len(raw) < n; i-- {
		if m.runs[i].script == script {
			raw = append(raw, m.runs[i].data)
		}
	}
	m.mu.Unlock()
	out := make([]*Entry, 0, len(raw))
	for _, data := range raw {
		e, err := Decode(data)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}
