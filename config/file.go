package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxFileSize is the largest configuration file restls reads, 16 MiB: far
// above any real configuration (10,000 services take about 2 MB), and
// small enough that reading and parsing one stays well under a few hundred
// megabytes of memory (docs/configuration.md).
const MaxFileSize = 16 << 20

// ErrNotRegular is the error, under a *FileError, for a path that is not a
// regular file: a directory, a FIFO, a device or a socket.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is the error, under a *FileError, for a file larger than
// MaxFileSize.
var ErrTooLarge = errors.New("file too large")

// FileError says why ReadFile refused a file. Its message leaves out the
// path, which diagnostics carry in their position.
type FileError struct {
	Path string
	// What the path is when it is not a regular file ("a directory",
	// "a FIFO (named pipe)", ...).
	What string
	// Size is the file's size in bytes when it is too large (at least
	// this much when it grew while read); Limit the limit applied.
	Size, Limit int64
	Err         error // ErrNotRegular or ErrTooLarge
}

func (e *FileError) Error() string {
	if errors.Is(e.Err, ErrTooLarge) {
		return fmt.Sprintf("the file is %s, above the %s limit for configuration files", sizeText(e.Size), sizeText(e.Limit))
	}
	return "the path is " + e.What + ", not a regular file"
}

func (e *FileError) Unwrap() error { return e.Err }

// ReadFile reads a configuration file: a regular file (a symbolic link is
// followed) of at most MaxFileSize bytes. Every configuration read goes
// through it, so that no path a user, an editor setting or a cloned
// repository names can hang restls (a FIFO with no writer, a socket) or
// fill its memory (/dev/zero, a huge file). A refused file is a
// *FileError.
func ReadFile(path string) ([]byte, error) { return readFileLimit(path, MaxFileSize) }

func readFileLimit(path string, limit int64) ([]byte, error) {
	// The type is checked on the opened file, not on the path before
	// opening it, so the path cannot change between check and read. Open
	// does not block on a FIFO without a writer (openFlags holds
	// O_NONBLOCK where the OS has it); a regular file ignores the flag.
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		// A socket cannot be opened at all (ENXIO): say what it is.
		if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
			return nil, &FileError{Path: path, What: fileKind(fi.Mode()), Err: ErrNotRegular}
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &FileError{Path: path, What: fileKind(fi.Mode()), Err: ErrNotRegular}
	}
	if fi.Size() > limit {
		return nil, &FileError{Path: path, Size: fi.Size(), Limit: limit, Err: ErrTooLarge}
	}
	return readAtMost(path, f, fi.Size(), limit)
}

// readAtMost reads r, whose size was size when it was opened, to its end
// or to one byte past limit, which shows a file that grew while read
// beyond the limit without reading more of it.
func readAtMost(path string, r io.Reader, size, limit int64) ([]byte, error) {
	buf := make([]byte, 0, size+1)
	lr := io.LimitReader(r, limit+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // the file grew: make room
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, &FileError{Path: path, Size: int64(len(buf)), Limit: limit, Err: ErrTooLarge}
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
