package config

import "github.com/restls/restls/input"

// ErrNotRegular is the error, under a *FileError, for a path that is not a
// regular file: a directory, a FIFO, a device or a socket.
var ErrNotRegular = input.ErrNotRegular

// ErrTooLarge is the error, under a *FileError, for a file above the
// 16 MiB limit of configuration files.
var ErrTooLarge = input.ErrTooLarge

// FileError says why ReadFile refused a file (input.FileError).
type FileError = input.FileError

// ReadFile reads a configuration file through input.ReadFile: a regular
// file (a symbolic link is followed) of at most 16 MiB, opened without
// blocking. 16 MiB (input.Config) is far above any real configuration
// (10,000 services take about 2 MB), and small enough that reading and
// parsing one stays well under a few hundred megabytes of memory
// (docs/configuration.md). A refused file is a *FileError.
func ReadFile(path string) ([]byte, error) { return input.ReadFile(path, input.Config) }
