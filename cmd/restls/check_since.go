package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
)

// restls check --since REF: the configuration files as REF has them,
// read with git (never a shell), for check.Since.

// gitTimeout bounds each git command; gitOutputLimit what one may print
// (a configuration file's limit).
const gitTimeout = 20 * time.Second

var gitOutputLimit = input.Config.Limit()

// errGitOutput is returned when git prints more than gitOutputLimit.
var errGitOutput = errors.New("git printed more than the limit for configuration files")

// boundedBuffer keeps at most limit bytes and then stops the command.
type boundedBuffer struct {
	buf    bytes.Buffer
	limit  int64
	over   bool
	cancel context.CancelFunc
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if int64(b.buf.Len()+len(p)) > b.limit {
		b.over = true
		b.cancel()
		return 0, errGitOutput
	}
	return b.buf.Write(p)
}

// runGit runs git with args in dir and returns its output, bounded in
// time and size; a failure carries git's first line of error.
func runGit(dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "LC_ALL=C")
	out := &boundedBuffer{limit: gitOutputLimit, cancel: cancel}
	errOut := &boundedBuffer{limit: 64 << 10, cancel: cancel}
	cmd.Stdout, cmd.Stderr = out, errOut
	err := cmd.Run()
	switch {
	case out.over:
		return nil, errGitOutput
	case ctx.Err() == context.DeadlineExceeded:
		return nil, fmt.Errorf("git %s took longer than %s", args[0], gitTimeout)
	case err != nil:
		msg, _, _ := strings.Cut(strings.TrimSpace(errOut.buf.String()), "\n")
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("git %s: %s", args[0], msg)
	}
	return out.buf.Bytes(), nil
}

// sinceReader reads configuration files as they are at a git revision.
type sinceReader struct {
	ref  string
	tops map[string]string // directory -> its repository's top ("" outside one)
}

// newSinceReader checks that ref names a commit of the repository holding
// dir.
func newSinceReader(ref, dir string) (*sinceReader, error) {
	if ref == "" || strings.HasPrefix(ref, "-") || strings.ContainsAny(ref, "\x00\n") {
		return nil, fmt.Errorf("--since %q: name a git revision (a branch, a tag, a commit, origin/main, HEAD~1)", ref)
	}
	r := &sinceReader{ref: ref, tops: map[string]string{}}
	top := r.top(dir)
	if top == "" {
		return nil, fmt.Errorf("--since %s: %s is not in a git repository", ref, dir)
	}
	if _, err := runGit(top, "rev-parse", "--verify", "--quiet", ref+"^{commit}"); err != nil {
		return nil, fmt.Errorf("--since %s: no such commit in %s (a shallow clone may lack it: fetch it first, e.g. actions/checkout with fetch-depth: 0)", ref, top)
	}
	return r, nil
}

// top returns the top of the repository holding dir (its nearest
// existing ancestor), "" when there is none.
func (r *sinceReader) top(dir string) string {
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	if t, ok := r.tops[dir]; ok {
		return t
	}
	out, err := runGit(dir, "rev-parse", "--show-toplevel")
	t := ""
	if err == nil {
		t = strings.TrimSpace(string(out))
	}
	r.tops[dir] = t
	return t
}

// read returns the file at path as it is at the revision; an error
// wrapping fs.ErrNotExist when the revision does not have it (or the
// file is outside the repository).
func (r *sinceReader) read(path string) ([]byte, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	top := r.top(filepath.Dir(abs))
	if top == "" {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fs.ErrNotExist}
	}
	// The top is the real path; the file's may go through a link.
	if real, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(real, filepath.Base(abs))
	}
	rel, err := filepath.Rel(top, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fs.ErrNotExist}
	}
	spec := r.ref + ":" + filepath.ToSlash(rel)
	if _, err := runGit(top, "cat-file", "-e", spec); err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fs.ErrNotExist}
	}
	data, err := runGit(top, "show", "--no-textconv", spec)
	if errors.Is(err, errGitOutput) {
		return nil, &config.FileError{Path: path, Kind: input.Config, Size: gitOutputLimit + 1, Limit: gitOutputLimit, Err: config.ErrTooLarge}
	}
	return data, err
}

// sinceSnapshot loads src's configuration as the revision ref has it.
func sinceSnapshot(ref string, src config.Sources) (*config.Snapshot, error) {
	if src.RegistryURL != "" {
		return nil, fmt.Errorf("--since %s: the configuration comes from --registry-url, not from files git has", ref)
	}
	files := src.Files()
	dir := "."
	if len(files) > 0 {
		dir = filepath.Dir(files[0])
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	r, err := newSinceReader(ref, abs)
	if err != nil {
		return nil, err
	}
	return config.LoadWith(src, r.read), nil
}
