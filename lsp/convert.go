package lsp

import (
	"strings"

	"go.lsp.dev/protocol"

	"github.com/restls/restls/hints"
)

// Conversions from the hint engine's types (byte offsets, its own kinds) to
// LSP types. Handlers call these; nothing else builds LSP results.

func toDiagnostic(m *mapper, d hints.Diagnostic) protocol.Diagnostic {
	out := protocol.Diagnostic{
		Range:    m.toRange(d.Range),
		Severity: severity(d.Severity),
		Source:   protocol.NewOptional("restls"),
		Message:  protocol.String(d.Message),
	}
	if d.Code != "" {
		out.Code = protocol.String(d.Code)
	}
	if d.Deprecated {
		out.Tags = protocol.NewDiagnosticTags(protocol.DiagnosticTagDeprecated)
	}
	return out
}

func severity(s hints.Severity) protocol.DiagnosticSeverity {
	switch s {
	case hints.SeverityError:
		return protocol.DiagnosticSeverityError
	case hints.SeverityWarning:
		return protocol.DiagnosticSeverityWarning
	case hints.SeverityInfo:
		return protocol.DiagnosticSeverityInformation
	default:
		return protocol.DiagnosticSeverityHint
	}
}

func itemKind(k hints.ItemKind) protocol.CompletionItemKind {
	switch k {
	case hints.ItemFunction:
		return protocol.CompletionItemKindFunction
	case hints.ItemModule:
		return protocol.CompletionItemKindModule
	case hints.ItemField:
		return protocol.CompletionItemKindField
	case hints.ItemValue:
		return protocol.CompletionItemKindValue
	case hints.ItemProperty:
		return protocol.CompletionItemKindProperty
	default:
		return protocol.CompletionItemKindText
	}
}

func markdown(s string) *protocol.MarkupContent {
	return &protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: s}
}

// toCompletionItem converts it, all but its edit: text is what it inserts
// over its Replace range, which the caller sends as the item's own text
// edit or as the list's default edit range. A plain-text item has no
// insertTextFormat (plain text is the specification's default).
func toCompletionItem(it hints.CompletionItem, snippets bool) (out protocol.CompletionItem, text string) {
	text = it.InsertText
	if text == "" {
		text = it.Label
	}
	out = protocol.CompletionItem{Label: it.Label, Kind: itemKind(it.Kind)}
	if it.Snippet {
		if snippets {
			out.InsertTextFormat = protocol.InsertTextFormatSnippet
		} else {
			text = stripSnippet(text)
		}
	}
	if it.Detail != "" {
		out.Detail = protocol.NewOptional(it.Detail)
	}
	if it.Documentation != "" {
		out.Documentation = markdown(it.Documentation)
	}
	if it.FilterText != "" {
		out.FilterText = protocol.NewOptional(it.FilterText)
	}
	if it.SortText != "" {
		out.SortText = protocol.NewOptional(it.SortText)
	}
	return out, text
}

// stripSnippet turns snippet syntax into plain text for clients without
// snippet support: "${1:name}" becomes "name", "$1" and "$0" disappear,
// "\$" becomes "$".
func stripSnippet(s string) string {
	if !strings.ContainsAny(s, "$\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && strings.IndexByte("$}\\", s[i+1]) >= 0:
			b.WriteByte(s[i+1])
			i++
		case c == '$' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			i++
			for i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
				i++
			}
		case c == '$' && i+1 < len(s) && s[i+1] == '{':
			j := i + 2
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j < len(s) && s[j] == ':' {
				i = j // the placeholder text follows; its closing brace is dropped below
				depthSkip(&b, s, &i)
			} else if j < len(s) && s[j] == '}' {
				i = j
			} else {
				b.WriteByte(c)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// depthSkip copies the placeholder text after "${n:" up to its closing
// brace, handling nested placeholders; *i ends on the closing brace.
func depthSkip(b *strings.Builder, s string, i *int) {
	start := *i + 1
	depth := 1
	j := start
	for ; j < len(s); j++ {
		switch {
		case s[j] == '\\' && j+1 < len(s):
			j++
		case s[j] == '{' && j > 0 && s[j-1] == '$':
			depth++
		case s[j] == '}':
			depth--
		}
		if depth == 0 {
			break
		}
	}
	b.WriteString(stripSnippet(s[start:min(j, len(s))]))
	*i = j
}
