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
	"syscall"
	"time"

	"github.com/restls/restls/config"
	"github.com/restls/restls/input"
)

// restls check --since REF: the configuration files as REF has them,
// read with git (never a shell), for check.Since.

// gitTimeout bounds each git command; gitOutputLimit what one may print
// (a configuration file's limit). gitWaitDelay is how long a git past
// its bound has, once told to stop (SIGTERM, on which git stops the
// fetch and remote helper it started), before it is killed and its
// pipes are closed, whoever still holds them: a remote helper or ssh
// that never answers holds git's stderr, and waiting for it would hold
// restls past the bound. Variables so that tests need not wait 20 s.
var (
	gitTimeout   = 20 * time.Second
	gitWaitDelay = 2 * time.Second
)

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
	cmd.Cancel = func() error {
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			return cmd.Process.Kill() // no SIGTERM (Windows)
		}
		return nil
	}
	cmd.WaitDelay = gitWaitDelay
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
		return nil, &gitError{cmd: args[0], timedOut: true}
	case err != nil:
		return nil, &gitError{cmd: args[0], msg: gitMessage(errOut.buf.String(), err)}
	}
	return out.buf.Bytes(), nil
}

// gitError is a git command that failed or ran past gitTimeout.
type gitError struct {
	cmd      string
	msg      string
	timedOut bool
}

func (e *gitError) Error() string {
	if e.timedOut {
		return fmt.Sprintf("git %s took longer than %s and was stopped", e.cmd, gitTimeout)
	}
	return fmt.Sprintf("git %s: %s", e.cmd, e.msg)
}

// gitMessage is what git said on stderr: its first line, and its last
// when that differs (a failed lazy fetch says the remote's problem first
// and "could not fetch ... from promisor remote" last).
func gitMessage(stderr string, err error) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	first, last := strings.TrimSpace(lines[0]), strings.TrimSpace(lines[len(lines)-1])
	switch {
	case first == "":
		return err.Error()
	case last != first:
		return first + " ... " + last
	}
	return first
}

// sinceReader reads configuration files as they are at a git revision.
type sinceReader struct {
	ref  string
	tops map[string]string // directory -> its repository's top ("" outside one)
	// failed is the first file git could not give: the loader would take
	// it for a file REF lacks (the comparison then passes silently), so
	// sinceSnapshot makes it the command's error.
	failed error
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
		if ge := (*gitError)(nil); errors.As(err, &ge) && ge.timedOut {
			return nil, fmt.Errorf("--since %s: %w", ref, err)
		}
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
	data, err := r.readAt(top, filepath.ToSlash(rel))
	var fe *config.FileError
	switch {
	case err == nil:
		return data, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, &fs.PathError{Op: "read", Path: path, Err: fs.ErrNotExist}
	case errors.Is(err, errGitOutput):
		return nil, &config.FileError{Path: path, Kind: input.Config, Size: gitOutputLimit + 1, Limit: gitOutputLimit, Err: config.ErrTooLarge}
	case errors.As(err, &fe):
		fe.Path = path
		return nil, fe
	}
	if r.failed == nil {
		r.failed = fmt.Errorf("%s as %s has it: %w%s", path, r.ref, err, partialCloneHint(top))
	}
	return nil, err
}

// readAt returns the blob at rel (relative to top) in the revision. It
// asks the tree first (git ls-tree, which a partial clone has without
// fetching): a path the tree lacks is fs.ErrNotExist; anything else git
// fails at, a lazy fetch of the blob from an unreachable remote among
// them, is an error of its own, never "absent".
func (r *sinceReader) readAt(top, rel string) ([]byte, error) {
	out, err := runGit(top, "--literal-pathspecs", "ls-tree", "-z", "--full-tree", r.ref, "--", rel)
	if err != nil {
		return nil, err
	}
	entry, _, _ := strings.Cut(string(out), "\x00")
	if entry == "" {
		return nil, fs.ErrNotExist
	}
	meta, name, ok := strings.Cut(entry, "\t")
	fields := strings.Fields(meta)
	if !ok || name != rel || len(fields) != 3 {
		return nil, fmt.Errorf("git ls-tree printed %q for %s", entry, rel)
	}
	mode, kind, oid := fields[0], fields[1], fields[2]
	switch {
	case kind == "tree":
		return nil, &config.FileError{Kind: input.Config, What: "a directory at " + r.ref, Err: input.ErrNotRegular}
	case kind != "blob":
		return nil, &config.FileError{Kind: input.Config, What: "a submodule at " + r.ref, Err: input.ErrNotRegular}
	case mode == "120000":
		return nil, &config.FileError{Kind: input.Config, What: "a symbolic link at " + r.ref + " (git stores where it leads, not the file)", Err: input.ErrNotRegular}
	}
	return runGit(top, "cat-file", "blob", oid)
}

// partialCloneHint says what to do when the repository at top is a
// partial clone (git clone --filter), whose files at REF git fetches
// from the remote when first asked.
func partialCloneHint(top string) string {
	// git sets remote.<name>.promisor on a partial clone (older versions
	// extensions.partialClone).
	if out, err := runGit(top, "config", "--get-regexp", `^(extensions\.partialclone|remote\..*\.promisor)$`); err != nil || strings.TrimSpace(string(out)) == "" {
		return ""
	}
	return "; this is a partial clone (git clone --filter), which fetches REF's files from its remote when they are first read: " +
		"make the remote reachable, or clone without --filter (actions/checkout: filter unset)"
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
	snap := config.LoadWith(src, r.read)
	if r.failed != nil {
		return nil, fmt.Errorf("--since %s: cannot read %w", ref, r.failed)
	}
	return snap, nil
}
