package lsp

import (
	"context"
	"reflect"

	"go.lsp.dev/jsonrpc2"
)

// MethodDecl declares one of restls' own LSP methods (restls/*): its
// name, which side sends it, and the types of its params and answer.
// CustomMethods holds them; a generator of client types reads Params and
// Result from it by reflection, as it reads CommandTable.
type MethodDecl struct {
	Name string
	// FromServer is true for a method the server sends to the client.
	FromServer bool
	// Params is the type of the params; Result the type of the answer,
	// nil for a notification.
	Params, Result reflect.Type

	handle method // nil for what the server sends
}

// customRequest declares the request name the client sends, with params
// P and answer R; run answers it (its params decoded by typed).
func customRequest[P, R any](name string, run func(s *session, ctx context.Context, req *jsonrpc2.Request, p *P) (R, error)) MethodDecl {
	return MethodDecl{
		Name: name, Params: reflect.TypeFor[P](), Result: reflect.TypeFor[R](),
		handle: typed(func(s *session, ctx context.Context, req *jsonrpc2.Request, p *P) (any, error) {
			res, err := run(s, ctx, req, p)
			if err != nil {
				return nil, err
			}
			return res, nil
		}),
	}
}

// serverNotification declares the notification name the server sends,
// with params P.
func serverNotification[P any](name string) MethodDecl {
	return MethodDecl{Name: name, FromServer: true, Params: reflect.TypeFor[P]()}
}

// CustomMethods declares restls' own LSP methods. The ones the client
// sends are served from here (withCustomMethods); adding one is an entry
// here, its handler, and a section in docs/lsp.md.
var CustomMethods = []MethodDecl{
	customRequest(MethodDocumentInfo, (*session).documentInfo),
	serverNotification[Status](MethodStatus),
}

// withCustomMethods adds the methods of CustomMethods the client sends
// to m.
func withCustomMethods(m map[string]method) map[string]method {
	for _, d := range CustomMethods {
		if d.handle != nil {
			m[d.Name] = d.handle
		}
	}
	return m
}
