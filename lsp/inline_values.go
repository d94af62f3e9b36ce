package lsp

import (
	"context"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/restls/restls/hints"
	"github.com/restls/restls/runtime/dryrun"
)

// The last run's values (issue 35): textDocument/inlineValue answers,
// for the lines of the range asked, the value each variable was last
// given in the document's last dry run, from the run history (an
// editor's and the designer's runs keep them: Result.Values), as
// "name = value" beside the name. A line whose text changed since that
// run shows nothing: the value would belong to other code. Values are
// masked as the preview masks them, before they are kept.

// maxInlineValues bounds the values one answer holds.
const maxInlineValues = 1000

// inlineValue answers textDocument/inlineValue.
func (s *session) inlineValue(_ context.Context, p *protocol.InlineValueParams, t viewed) (any, error) {
	out := []protocol.InlineValue{}
	v := t.view
	if !t.ok || isConfigDocument(v.d.path) {
		return out, nil
	}
	runs, err := s.history.Last(historyKey(v.d), 1)
	if err != nil || len(runs) == 0 || runs[0].Run == nil {
		return out, nil
	}
	text := v.d.doc.Text()
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	from, to := v.d.m.fromRange(p.Range)
	for _, lv := range runs[0].Run.Values {
		if len(out) == maxInlineValues {
			break
		}
		if lv.Line < 1 || lv.Line > len(starts) {
			continue
		}
		end := len(text)
		if lv.Line < len(starts) {
			end = starts[lv.Line]
		}
		lineText := text[starts[lv.Line-1]:end]
		if dryrun.LineHash(lineText) != lv.LineHash {
			continue // changed since the run
		}
		at := starts[lv.Line-1] + lv.Column - 1
		if at < from || at > to || lv.Column < 1 || lv.Column-1+len(lv.Name) > len(lineText) || !strings.HasPrefix(lineText[lv.Column-1:], lv.Name) {
			continue
		}
		out = append(out, &protocol.InlineValueText{Range: v.d.m.toRange(hints.Range{Start: at, End: at + len(lv.Name)}), Text: lv.Name + " = " + lv.Value})
	}
	return out, nil
}
