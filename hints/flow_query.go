package hints

import (
	"fmt"

	"github.com/restls/restls/openapi"
)

// What the answer types of flow.go are, against the descriptions (or
// recorded answers) of a Display: what completion (flow_complete.go),
// hover (flow_hover.go), definition (flow_definition.go) and the
// diagnostics (diagnose_flow.go) share.

// vkind is what a typed value is.
type vkind uint8

const (
	vResponse    vkind = iota + 1 // the answer: status, headers, body
	vStatus                       // status: code, message
	vCode                         // status.code
	vMessage                      // status.message
	vHeaders                      // headers
	vHeader                       // one header's value
	vBody                         // (part of) the body, schema when described
	vException                    // the exception: status, body
	vExcBody                      // the exception's body: a string
	vExcBodyRead                  // a read from the exception's body: a mistake
	vExcHeaders                   // the exception's headers: there are none
)

// fval is a typed value resolved against the descriptions.
type fval struct {
	kind   vkind
	schema *openapi.Schema // vBody
	prop   *openapi.Prop   // the property it was read as
	op     *openapi.Operation
	idx    *openapi.Index
	call   int32 // the call it is the answer or exception of; -1 unknown
	// missing is the property read that the schema (of vBody, the
	// schema above) does not have.
	missing string
}

// resolve resolves type x, then the extra steps, against disp; ok false
// when it is no value restls knows (a function, a read from a status
// code ...).
func (r *flowResult) resolve(x ftype, extra []string, disp Display) (fval, bool) {
	if x.o != oResponse && x.o != oException {
		return fval{}, false
	}
	v := fval{kind: vResponse, call: x.id}
	if x.o == oException {
		v.kind = vException
	}
	v.op, v.idx = r.opOf(x.id, disp)
	steps := append(x.p.steps(), extra...)
	for i, st := range steps {
		if st == "<arr>" {
			if i+1 < len(steps) && steps[i+1] == "[]" {
				continue
			}
			return fval{}, false
		}
		if i > 0 && steps[i-1] == "<arr>" && st == "[]" {
			continue
		}
		switch v.kind {
		case vResponse:
			switch st {
			case "body":
				v.kind = vBody
				if v.op != nil {
					v.schema = v.op.Response
				}
			case "status":
				v.kind = vStatus
			case "headers":
				v.kind = vHeaders
			default:
				return fval{}, false
			}
		case vException:
			switch st {
			case "body":
				v.kind = vExcBody
			case "status":
				v.kind = vStatus
			case "headers":
				v.kind = vExcHeaders
			default:
				return fval{}, false // another thrown thing's field
			}
		case vStatus:
			switch st {
			case "code":
				v.kind = vCode
			case "message":
				v.kind = vMessage
			default:
				return fval{}, false
			}
		case vHeaders:
			if st == "[]" {
				return fval{}, false
			}
			v.kind = vHeader
		case vExcBody:
			if st == "[]" {
				return fval{}, false
			}
			v.kind, v.missing = vExcBodyRead, st
		case vBody:
			if v.schema == nil || v.missing != "" {
				return fval{}, false
			}
			if st == "[]" {
				if v.schema.Items == nil {
					return fval{}, false
				}
				v.schema, v.prop = v.schema.Items, nil
				continue
			}
			p := v.schema.Prop(st)
			if p == nil {
				v.missing = st
				if i != len(steps)-1 {
					return fval{}, false
				}
				continue
			}
			v.schema, v.prop = p.Schema, p
		default:
			return fval{}, false
		}
	}
	return v, true
}

// source says where a body value's schema comes from.
func (v fval) source(disp Display) string {
	if v.op == nil || v.idx == nil {
		return ""
	}
	if v.idx.Recorded {
		return fmt.Sprintf("From recorded answers: `%s:%d` (no API description).", disp.path(v.idx.Source), v.op.Line)
	}
	return "From the `" + v.op.Method + " " + v.op.Path + "` answer in the service's API description."
}
