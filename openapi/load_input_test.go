package openapi

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/restls/restls/input"
)

// TestDescriptionLimit: the reader's limit for descriptions is MaxSize,
// the limit of a description fetched by URL and of the builder.
func TestDescriptionLimit(t *testing.T) {
	t.Parallel()
	if input.Description.Limit() != MaxSize {
		t.Errorf("input.Description.Limit() = %d, MaxSize = %d", input.Description.Limit(), MaxSize)
	}
}

// TestLoaderFileTooLarge: a sparse description above MaxSize is refused
// by its size, with ErrTooLarge, before it is read.
func TestLoaderFileTooLarge(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxSize + 1); err != nil {
		t.Skip("no sparse files here:", err)
	}
	f.Close()
	var l Loader
	if _, err := l.Load(t.Context(), path); !errors.Is(err, ErrTooLarge) || !errors.Is(err, input.ErrTooLarge) {
		t.Errorf("got %v", err)
	}
}
