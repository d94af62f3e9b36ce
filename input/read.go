package input

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"
)

// Kind is a kind of file restls reads. Each kind has its size limit
// (docs/decisions.md, "Bounded reading (issue 23)"), and scripts must be
// text.
type Kind int

// The kinds of file restls reads.
const (
	// Config: application.yml and .properties, the service XML files, the
	// platform timeout configuration. 16 MiB.
	Config Kind = iota
	// Description: an OpenAPI description, 48 MiB (GitHub's is 13 MB).
	Description
	// Fixtures: a mock fixtures file (--mock, a test file's fixtures:, a
	// fixture file beside a script) and a recording read back before it
	// is updated. 16 MiB.
	Fixtures
	// TestFile: a NAME.test.yaml file of restls test. 4 MiB.
	TestFile
	// Script: a script that restls check, test or run reads from a file.
	// 16 MiB, and text (UTF-8 without NUL bytes).
	Script
	// Ignore: a .gitignore or .git/info/exclude that restls check walks
	// past. 1 MiB.
	Ignore
	// Input: the JSON of restls run --input. 16 MiB. A pipe is read too
	// (to its end or the limit): a shell user may write --input <(...).
	Input
	// History: one kept dry run of the run history
	// (runtime/dryrun/history), 512 KiB.
	History
	// Curl: a curl command line restls curl reads from standard input,
	// 1 MiB: what curlin.Parse reads (curlin.MaxInputBytes).
	Curl
)

var kinds = [...]struct {
	plural string // "the limit for configuration files"
	limit  int64
}{
	Config:      {"configuration files", 16 << 20},
	Description: {"API descriptions", 48 << 20},
	Fixtures:    {"fixtures files", 16 << 20},
	TestFile:    {"test files", 4 << 20},
	Script:      {"scripts", 16 << 20},
	Ignore:      {"ignore files", 1 << 20},
	Input:       {"input files", 16 << 20},
	History:     {"run history entries", 512 << 10},
	Curl:        {"curl command lines", 1 << 20},
}

// Limit is the largest file of kind k that restls reads, in bytes.
func (k Kind) Limit() int64 { return kinds[k].limit }

// String names the kind in the plural, as messages use it.
func (k Kind) String() string { return kinds[k].plural }

// The errors under a *FileError, for errors.Is.
var (
	// ErrNotRegular: the path is a directory, a FIFO, a device or a
	// socket (after symbolic links are followed).
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file is above its kind's limit.
	ErrTooLarge = errors.New("file too large")
	// ErrOutside: the path leads out of the root it must stay in, by
	// "../" or a symbolic link.
	ErrOutside = errors.New("outside the repository")
	// ErrNotText: a script holds a NUL byte or is not UTF-8.
	ErrNotText = errors.New("not a text file")
	// ErrDanglingLink: the path is a symbolic link to nothing; writing
	// through it would create its target, wherever that is.
	ErrDanglingLink = errors.New("a link to a missing file")
)

// FileError says why a file was refused. Its message leaves out the path,
// which the caller names (a diagnostic's position, "cannot read the
// script X: ..."), and never quotes the file's content.
type FileError struct {
	Path string
	Kind Kind
	// What the path is when it is not a regular file ("a directory",
	// "a FIFO (named pipe)", ...).
	What string
	// Size is the file's size in bytes when it is too large (at least
	// this much when it grew while read); Limit the limit applied.
	Size, Limit int64
	// Root is the root the path had to stay in, Target where it leads
	// (ErrOutside).
	Root, Target string
	// Offset is where a file that is not text stops being text.
	Offset int64
	Err    error
}

func (e *FileError) Error() string {
	switch {
	case errors.Is(e.Err, ErrTooLarge):
		return fmt.Sprintf("the file is %s, above the %s limit for %s", sizeText(e.Size), sizeText(e.Limit), e.Kind)
	case errors.Is(e.Err, ErrOutside):
		return fmt.Sprintf("the path leads to %s, outside the repository root %s", e.Target, e.Root)
	case errors.Is(e.Err, ErrDanglingLink):
		return fmt.Sprintf("the path is a symbolic link to %s, which does not exist; remove the link, or create the file it names", e.Target)
	case errors.Is(e.Err, ErrNotText):
		return fmt.Sprintf("the file is not text (a NUL byte or a byte that is not UTF-8 at offset %d); its content is not shown", e.Offset)
	}
	return "the path is " + e.What + ", not a regular file"
}

func (e *FileError) Unwrap() error { return e.Err }

// ReadFile reads a file of kind k: a regular file (a symbolic link is
// followed) of at most k.Limit() bytes, opened without blocking, so that
// no path a user, an editor setting or a cloned repository names can hang
// restls (a FIFO with no writer, a socket) or fill its memory (/dev/zero,
// a huge or sparse file). A refused file is a *FileError.
func ReadFile(path string, k Kind) ([]byte, error) {
	return read(path, k, k.Limit(), 0)
}

// ReadHead reads at most n bytes from the start of the regular file at
// path (a symbolic link is followed), opened without blocking, whatever
// its size: the project index finds the script: line of a test file too
// large for ReadFile there, so that the run of that script's tests
// reports the file as restls test does. Anything but a regular file is a
// *FileError (ErrNotRegular).
func ReadHead(path string, k Kind, n int) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &FileError{Path: path, Kind: k, What: fileKind(fi.Mode()), Err: ErrNotRegular}
	}
	buf := make([]byte, min(int64(n), fi.Size()))
	m, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf[:m], nil
}

// Room is space a caller wants around a file's bytes in the buffer they
// are read into (ReadFileRoom): Before zero bytes, the file's, then After
// zero bytes.
type Room struct{ Before, After int }

// ReadFileRoom is ReadFile with room around the file's bytes: they are
// data[room.Before:len(data)-room.After]. restls check reads each script
// into the buffer goja's parser takes it in, wrapped in a function
// (hints.NewDocumentIn), instead of copying it there.
func ReadFileRoom(path string, k Kind, room Room) ([]byte, error) {
	data, ok, err := readRegular(path, k.Limit(), 0, room)
	if ok {
		if _, err := checkText(path, k, data[room.Before:len(data)-room.After]); err != nil {
			return nil, err
		}
		return data, nil
	}
	if data, err = readGeneral(path, k, k.Limit(), 0, err); err != nil || room == (Room{}) {
		return data, err
	}
	buf := make([]byte, room.Before+len(data)+room.After)
	copy(buf[room.Before:], data)
	return buf, nil
}

// ReadFileIn is ReadFile for a file a repository names (a test file's
// script: and fixtures:, a fixture file beside a script): the path, its
// symbolic links followed, must stay inside root (ErrOutside otherwise).
func ReadFileIn(root, path string, k Kind) ([]byte, error) {
	resolved, err := Inside(root, path, k)
	if err != nil {
		return nil, err
	}
	// The resolved path holds no link: one put there meanwhile is refused.
	return read(resolved, k, k.Limit(), noFollow)
}

// Inside returns path with its symbolic links resolved, or an ErrOutside
// *FileError when it leads out of root (itself resolved). A path that
// does not exist is the error of resolving it (fs.ErrNotExist).
func Inside(root, path string, k Kind) (string, error) {
	r, err := resolve(root)
	if err != nil {
		return "", err
	}
	p, err := resolve(path)
	if err != nil {
		return "", err
	}
	if !Within(r, p) {
		return "", &FileError{Path: path, Kind: k, Root: r, Target: p, Err: ErrOutside}
	}
	return p, nil
}

// WritableIn says whether path, a file a repository names that restls or
// an editor is about to create or replace (a fixture file beside a
// script: record "auto", "Add a fixture for this call", restls fixtures
// generate), may be: nothing is there, or what is there leads, its links
// followed, to a place inside root (ErrOutside otherwise). A symbolic
// link to nothing is refused (ErrDanglingLink), wherever it points: an
// editor creating the file would create the link's target, and a target
// that does not exist cannot be judged against root.
func WritableIn(root, path string, k Kind) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		_, err = Inside(root, filepath.Dir(path), k)
		return err
	case err != nil:
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if _, err := resolve(path); errors.Is(err, fs.ErrNotExist) {
			target, _ := os.Readlink(path)
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(path), target)
			}
			if abs, err := filepath.Abs(target); err == nil {
				target = abs
			}
			return &FileError{Path: path, Kind: k, Target: target, Err: ErrDanglingLink}
		}
	}
	_, err = Inside(root, path, k)
	return err
}

func resolve(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// Within reports whether p is root or below it; both are clean and
// absolute. It compares the paths as written: resolve links first where
// they matter (as Inside does).
func Within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// RepoRoot is the top of the git repository holding path (the nearest
// directory above it, or itself, with a .git entry: a directory, or a
// file in a linked worktree), or "" when there is none.
func RepoRoot(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	for dir := abs; ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// RootOf is the root the files a repository file names must stay in: the
// top of its git repository; outside one, the working directory when it
// holds the file, else the file's own directory.
func RootOf(file string) string {
	if r := RepoRoot(file); r != "" {
		return r
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return filepath.Dir(file)
	}
	if wd, err := os.Getwd(); err == nil && Within(wd, abs) {
		return wd
	}
	return filepath.Dir(abs)
}

func read(path string, k Kind, limit int64, extra int) ([]byte, error) {
	data, ok, err := readRegular(path, limit, extra, Room{})
	if ok {
		return checkText(path, k, data)
	}
	return readGeneral(path, k, limit, extra, err)
}

// readGeneral reads what readRegular left: openErr is the error of its
// open, if that failed.
func readGeneral(path string, k Kind, limit int64, extra int, openErr error) ([]byte, error) {
	if errors.Is(openErr, syscall.ENOENT) {
		// What os.OpenFile says: no second open, no stat (a .gitignore
		// missing from every directory restls check walks).
		return nil, &fs.PathError{Op: "open", Path: path, Err: openErr}
	}
	// The type is checked on the opened file, not on the path before
	// opening it, so the path cannot change between check and read. Open
	// does not block on a FIFO without a writer (openFlags holds
	// O_NONBLOCK where the OS has it); a regular file ignores the flag.
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags|extra, 0)
	if err != nil {
		// A socket cannot be opened at all (ENXIO): say what it is.
		if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
			return nil, &FileError{Path: path, Kind: k, What: fileKind(fi.Mode()), Err: ErrNotRegular}
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() && !(k == Input && fi.Mode()&fs.ModeNamedPipe != 0) {
		return nil, &FileError{Path: path, Kind: k, What: fileKind(fi.Mode()), Err: ErrNotRegular}
	}
	if fi.Size() > limit {
		return nil, &FileError{Path: path, Kind: k, Size: fi.Size(), Limit: limit, Err: ErrTooLarge}
	}
	data, err := readAtMost(path, k, f, fi.Size(), limit)
	if err != nil {
		return nil, err
	}
	return checkText(path, k, data)
}

// ReadFrom reads a stream of kind k whose size is not known beforehand
// (restls run's script on standard input) to its end, up to k's limit,
// and checks a script is text, as ReadFile does; path names it in errors.
func ReadFrom(r io.Reader, path string, k Kind) ([]byte, error) {
	data, err := readAtMost(path, k, r, 4096, k.Limit())
	if err != nil {
		return nil, err
	}
	return checkText(path, k, data)
}

func checkText(path string, k Kind, data []byte) ([]byte, error) {
	if k == Script {
		if off := notText(data); off >= 0 {
			return nil, &FileError{Path: path, Kind: k, Offset: int64(off), Err: ErrNotText}
		}
	}
	return data, nil
}

// notText is the offset of the first NUL byte or byte that is not UTF-8
// in data, or -1 when it is text.
func notText(data []byte) int {
	// Most files are text: two passes the library runs a word or a
	// vector at a time say so, and only other files are searched byte by
	// byte for the offset.
	if bytes.IndexByte(data, 0) < 0 && utf8.Valid(data) {
		return -1
	}
	for i := 0; i < len(data); {
		c := data[i]
		if c < utf8.RuneSelf {
			if c == 0 {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// readAtMost reads r, whose size was size when it was opened, to its end
// or to one byte past limit, which shows a file that grew while read
// beyond the limit without reading more of it. A file whose size says
// nothing (/proc) is read the same way.
func readAtMost(path string, k Kind, r io.Reader, size, limit int64) ([]byte, error) {
	buf := make([]byte, 0, size+1)
	lr := io.LimitReader(r, limit+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // the file grew: make room
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, &FileError{Path: path, Kind: k, Size: int64(len(buf)), Limit: limit, Err: ErrTooLarge}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// fileKind names what a non-regular file is, for a message.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	default:
		return "not a regular file"
	}
}

// sizeText writes a size for a message: MiB with one decimal from 1 MiB,
// with the exact byte count.
func sizeText(n int64) string {
	if n >= 1<<20 {
		if n%(1<<20) == 0 {
			return fmt.Sprintf("%d MiB", n>>20)
		}
		return fmt.Sprintf("%.1f MiB (%d bytes)", float64(n)/(1<<20), n)
	}
	return fmt.Sprintf("%d bytes", n)
}

// WriteFileIn replaces the content of path, an existing regular file that
// a repository names (restls test --update's test files), with data. The
// path, its links followed, must stay inside root: a test file that is a
// link out of the repository is refused (ErrOutside), never written
// through. The file keeps its permissions, and is replaced whole
// (ReplaceFile) at the path its links lead to: a write that fails half
// way (a full disk, a quota, a file size limit) leaves it as it was.
func WriteFileIn(root, path string, data []byte) error {
	resolved, err := Inside(root, path, TestFile)
	if err != nil {
		return err
	}
	fi, err := os.Lstat(resolved)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &FileError{Path: path, Kind: TestFile, What: fileKind(fi.Mode()), Err: ErrNotRegular}
	}
	// The rename replaces the entry at resolved, whatever it has become
	// since: a link put there meanwhile is replaced, never followed.
	return ReplaceFile(resolved, data)
}

// ReplaceFile writes data to file in one step: to a new file beside it
// (same directory, so the rename does not cross file systems), synced,
// then renamed over it. A reader sees the old file or the new one, never
// a part, and a write that fails leaves the old file whole. An existing
// file's permissions are kept (new files get 0644). The entry at file is
// replaced, not followed: a symbolic link there becomes a regular file
// (callers that must write through a link resolve it first, as
// WriteFileIn does). Errors name no temporary file: the caller names
// the file.
func ReplaceFile(file string, data []byte) error {
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(file); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*")
	if err != nil {
		return pathless(err)
	}
	defer os.Remove(tmp.Name()) // after a failure; gone after the rename
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	return pathless(err)
}

// pathless drops the path of an *fs.PathError or *os.LinkError (the
// temporary file's), keeping what went wrong.
func pathless(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// ErrNoDir is the error, wrapped, of CheckWriteTarget for a file whose
// directory does not exist or is not a directory.
var ErrNoDir = errors.New("no such directory")

// CheckWriteTarget says whether file can be written later (restls run
// --record, before any live call is made): its directory exists and is a
// directory, and the file, if it exists, is a regular file.
func CheckWriteTarget(file string) error {
	dir := filepath.Dir(file)
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("%w: %s does not exist; create it first", ErrNoDir, dir)
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is %s", ErrNoDir, dir, fileKind(fi.Mode()))
	}
	if fi, err := os.Stat(file); err == nil && !fi.Mode().IsRegular() {
		return &FileError{Path: file, Kind: Fixtures, What: fileKind(fi.Mode()), Err: ErrNotRegular}
	}
	return nil
}

// WritePrivate writes data to path, a file the operator names (serve's
// --page-url-file), readable by its owner only whatever mode an existing
// file had. Only a regular file is written: a FIFO is neither waited on
// (opened without blocking, it is refused at once) nor written to, so a
// mistaken path cannot hang the server at start.
func WritePrivate(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|openFlags, 0o600)
	if err != nil {
		if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
			return &FileError{Path: path, What: fileKind(fi.Mode()), Err: ErrNotRegular}
		}
		return err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &FileError{Path: path, What: fileKind(fi.Mode()), Err: ErrNotRegular}
	}
	if err == nil {
		err = f.Chmod(0o600)
	}
	if err == nil {
		err = f.Truncate(0)
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
