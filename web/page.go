package web

import (
	"embed"
	"io/fs"
	"net/http"
)

// The designer page: index.html, and the bundle built from designer/src by
// `make designer` (committed, so a plain `go build` serves it; `make
// designer-check` fails when it is stale).
//
//go:embed all:static
var static embed.FS

func pageHandler() http.Handler {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embed directive guarantees the directory
	}
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		// The page's address may carry the access key: a link followed from
		// a hover must not hand it on.
		h.Set("Referrer-Policy", "no-referrer")
		// The page loads only its own script and style and talks only to
		// this origin (fetch and WebSocket).
		h.Set("Content-Security-Policy", "default-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'")
		files.ServeHTTP(w, r)
	})
}
