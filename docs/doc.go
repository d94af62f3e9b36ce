// Package docs holds restls's user documentation, and embeds the pages
// restls serves itself: the api.rest.v1 contract (API), which the MCP
// server (package mcp) hands agents as a resource. The page stays one
// file in docs/, read by people on the repository and by agents alike.
//
// It imports nothing of restls.
package docs

import _ "embed"

// API is docs/api.md, the api.rest.v1 contract.
//
//go:embed api.md
var API string
