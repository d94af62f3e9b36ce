package openapi

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	schemakind "github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Answers checked against the description (issue 27): restls run looks up
// each call's operation and checks the answer's status and JSON body
// against the documented answers. The schemas are those of BuildAnswers,
// rewritten as the request schemas are (validate.go), but for the
// direction: an answer need not hold a writeOnly property, where a
// request need not hold a readOnly one.

// answerRaw is a documented answer: its status key and JSON schema.
type answerRaw struct {
	status string
	raw    rawSchema
	// example is the answer's example (the media type's example, or
	// its first examples' value), for generated fixtures (example.go).
	example *node
}

// AnswerFinding is one way an answer breaks its operation's description.
type AnswerFinding struct {
	// Path is the JSON pointer of the value in the body ("" for the
	// status or the whole body).
	Path string
	// Rule is "status", or the schema keyword broken: type, enum,
	// required, format, anyOf ...
	Rule    string
	Message string
}

// Bounds of one answer's check.
const (
	// maxAnswerFindings is how many findings of one answer are kept.
	maxAnswerFindings = 20
	// answerTimeout bounds the validation of one answer; past it the body
	// is not reported on.
	answerTimeout = 2 * time.Second
)

var answerPrinter = message.NewPrinter(language.English)

// documented returns op's answer for status: the exact code, else its
// class (2XX), else default.
func (op *Operation) documented(status int) (answerRaw, bool) {
	code := strconv.Itoa(status)
	class := code[:1] + "XX"
	for _, want := range []string{code, class, "default"} {
		for _, a := range op.answers {
			if strings.EqualFold(a.status, want) {
				return a, true
			}
		}
	}
	return answerRaw{}, false
}

// CheckAnswer checks an answer to op: its status is documented, and its
// body (when body is a decoded JSON value, numbers as json.Number) holds
// to that answer's schema. An index not built by BuildAnswers, or an
// operation that documents no answer, finds nothing.
func (idx *Index) CheckAnswer(op *Operation, status int, body any, isJSON bool) []AnswerFinding {
	if idx == nil || op == nil || len(op.answers) == 0 || status < 100 || status > 999 {
		return nil
	}
	a, ok := op.documented(status)
	if !ok {
		return []AnswerFinding{{Rule: "status", Message: fmt.Sprintf("%[2]s %[3]s: status %[1]d is not documented (it documents %[4]s)",
			status, op.Method, op.Path, strings.Join(op.Statuses, ", "))}}
	}
	if !isJSON || a.raw.n == nil {
		return nil
	}
	v, fast, why := idx.answerValidator(rawSchema{n: a.raw.n, param: a.raw.param, answer: true})
	if v == nil {
		if why == "" {
			return nil
		}
		return []AnswerFinding{notChecked(op, a, why)}
	}
	done := make(chan error, 1)
	go func() {
		defer func() {
			if recover() != nil {
				done <- nil
			}
		}()
		if fast != nil && fast.valid(body) {
			// Proven valid: the library would find nothing
			// (answer_fast.go).
			done <- nil
			return
		}
		done <- v.Validate(body)
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(answerTimeout):
		return []AnswerFinding{notChecked(op, a, fmt.Sprintf("its check took longer than %v and was stopped (the budget of an answer's check)", answerTimeout))}
	}
	verr, _ := err.(*jsonschema.ValidationError)
	if verr == nil {
		return nil
	}
	var out []AnswerFinding
	collectAnswer(verr, &out)
	// The validator walks an object's members in map order: sort, so a
	// preview says the same each run.
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Message < out[j].Message
	})
	for i := range out {
		out[i].Message = fmt.Sprintf("%s %s, status %s: %s", op.Method, op.Path, a.status, out[i].Message)
	}
	return out
}

// RuleNotChecked is the rule of the finding that says an answer's body
// was not checked against its documented schema, and why: a run that
// checks nothing must say so, not look like one that found nothing.
const RuleNotChecked = "not-checked"

func notChecked(op *Operation, a answerRaw, why string) AnswerFinding {
	return AnswerFinding{Rule: RuleNotChecked, Message: fmt.Sprintf("%s %s, status %s: the body was not checked against the description: %s",
		op.Method, op.Path, a.status, why)}
}

// collectAnswer appends the leaves of a validation error: an anyOf is
// one finding unless one of its choices has the value's type.
func collectAnswer(e *jsonschema.ValidationError, out *[]AnswerFinding) {
	if len(*out) >= maxAnswerFindings {
		return
	}
	switch e.ErrorKind.(type) {
	case *schemakind.Group, *schemakind.Schema, *schemakind.Reference, *schemakind.AllOf:
		for _, c := range e.Causes {
			collectAnswer(c, out)
		}
		return
	case *schemakind.RefCycle, *schemakind.InvalidJsonValue:
		return
	}
	ptr := jsonPointer(e.InstanceLocation)
	rule := "schema"
	if kw := e.ErrorKind.KeywordPath(); len(kw) > 0 {
		rule = kw[0]
	}
	where := ptr
	if where == "" {
		where = "the body"
	}
	*out = append(*out, AnswerFinding{Path: ptr, Rule: rule, Message: where + ": " + e.ErrorKind.LocalizedString(answerPrinter)})
}

func jsonPointer(loc []string) string {
	var b strings.Builder
	for _, t := range loc {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}
