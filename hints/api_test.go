package hints

import "github.com/restls/restls/config"

// Complete is AppendCompletion without options, the answer most tests compare.
// Only tests want it: every caller of restls passes its options.
func Complete(doc *Document, offset int, reg *config.Registry) Completion {
	return AppendCompletion(nil, doc, offset, reg, CompleteOptions{})
}
