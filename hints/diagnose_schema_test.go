package hints

import (
	"encoding/json"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v4"

	"github.com/restls/restls/openapi"
)

// The descriptions of the literal checks: one service, "things", written
// in each style a description comes in, with the same rules.
var schemaStyles = []string{"3.0 yaml", "3.1 json", "2.0 json"}

// thingsDescription writes the things service in a style.
func thingsDescription(t testing.TB, style string) []byte {
	t.Helper()
	swagger := strings.HasPrefix(style, "2.0")
	v31 := strings.HasPrefix(style, "3.1")
	nullable := func(s map[string]any) map[string]any {
		switch {
		case v31:
			s["type"] = []any{s["type"], "null"}
		case swagger:
			s["x-nullable"] = true
		default:
			s["nullable"] = true
		}
		return s
	}
	ref := func(name string) map[string]any {
		if swagger {
			return map[string]any{"$ref": "#/definitions/" + name}
		}
		return map[string]any{"$ref": "#/components/schemas/" + name}
	}
	newThing := map[string]any{
		"type":     "object",
		"required": []any{"name", "kind", "size"}, // size is under no properties
		"properties": map[string]any{
			"name":  map[string]any{"type": "string", "minLength": 2, "maxLength": 10, "pattern": "^[a-z]+$"},
			"kind":  map[string]any{"type": "string", "enum": []any{"small", "big"}},
			"email": map[string]any{"type": "string", "format": "email"},
			"site":  map[string]any{"type": "string", "format": "uri"},
			"born":  map[string]any{"type": "string", "format": "date"},
			"code":  map[string]any{"type": "string", "format": "int32x"}, // a format not asserted
			"count": map[string]any{"type": "integer", "minimum": 0, "maximum": 10},
			"id":    map[string]any{"type": "integer", "readOnly": true},
			"tags":  map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"a", "b"}}},
			"note":  nullable(map[string]any{"type": "string", "maxLength": 5}),
			"address": map[string]any{
				"type": "object", "required": []any{"city"}, "additionalProperties": false,
				"properties": map[string]any{
					"city": map[string]any{"type": "string"},
					"zip":  map[string]any{"type": "string", "pattern": `^\d{5}$`},
					"look": map[string]any{"type": "string", "pattern": `^(?=a)`}, // RE2 cannot: left out
				},
			},
		},
	}
	if !swagger {
		newThing["properties"].(map[string]any)["pet"] = map[string]any{
			"oneOf":         []any{ref("Cat"), ref("Dog")},
			"discriminator": map[string]any{"propertyName": "type"},
		}
	}
	cat := map[string]any{"type": "object", "required": []any{"meow"}, "properties": map[string]any{"meow": map[string]any{"type": "boolean"}}}
	dog := map[string]any{"type": "object", "required": []any{"bark"}, "properties": map[string]any{"bark": map[string]any{"type": "boolean"}}}
	param := func(name, in string, schema map[string]any) map[string]any {
		p := map[string]any{"name": name, "in": in, "required": in == "path"}
		if swagger {
			for k, v := range schema {
				p[k] = v
			}
			return p
		}
		p["schema"] = schema
		return p
	}
	getParams := []any{
		param("id", "path", map[string]any{"type": "integer", "minimum": 1}),
		param("state", "query", map[string]any{"type": "string", "enum": []any{"open", "closed", "all"}}),
		param("per_page", "query", map[string]any{"type": "integer", "minimum": 1, "maximum": 100}),
		param("since", "query", map[string]any{"type": "string", "format": "date-time"}),
		param("flag", "query", map[string]any{"type": "boolean"}),
		param("ids", "query", map[string]any{"type": "array", "items": map[string]any{"type": "integer"}}),
		param("X-Request-Id", "header", map[string]any{"type": "string", "format": "uuid"}),
	}
	viewParams := []any{
		param("id", "path", map[string]any{"type": "integer"}),
		param("view", "path", map[string]any{"type": "string", "enum": []any{"summary", "full"}}),
	}
	ok := map[string]any{"200": map[string]any{"description": "ok"}}
	post := map[string]any{"responses": ok}
	doc := map[string]any{
		"info": map[string]any{"title": "Things", "version": "1"},
		"paths": map[string]any{"/things/{id}": map[string]any{"get": map[string]any{"parameters": getParams, "responses": ok}}, "/things": map[string]any{"post": post},
			"/things/{id}/{view}": map[string]any{"get": map[string]any{"parameters": viewParams, "responses": ok}}},
	}
	schemas := map[string]any{"NewThing": newThing, "Cat": cat, "Dog": dog}
	if swagger {
		doc["swagger"] = "2.0"
		doc["host"] = "things.example.test"
		doc["definitions"] = schemas
		post["parameters"] = []any{map[string]any{"name": "body", "in": "body", "required": true, "schema": ref("NewThing")}}
	} else {
		doc["openapi"] = "3.0.3"
		if v31 {
			doc["openapi"] = "3.1.0"
		}
		doc["components"] = map[string]any{"schemas": schemas}
		post["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": ref("NewThing")}}}
	}
	var data []byte
	var err error
	if strings.HasSuffix(style, "yaml") {
		data, err = yaml.Marshal(doc)
	} else {
		data, err = json.Marshal(doc)
	}
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func thingsDisplay(t testing.TB, style string) Display {
	t.Helper()
	idx, err := openapi.Build("things."+strings.Fields(style)[1], thingsDescription(t, style))
	if err != nil {
		t.Fatal(err)
	}
	return Display{APIs: openapi.Attach(testRegistry(t), []openapi.Doc{{ServiceID: "crm", Index: idx}})}
}

// TestLiteralSchemaChecks: each rule, in each description style; the
// script's literal is marked by the text its diagnostic covers.
func TestLiteralSchemaChecks(t *testing.T) {
	type want struct {
		code   string
		covers string
		msg    string // a substring of the message
	}
	const (
		get  = `api.rest.v1.get("crm", {pathParams: ["things", %s], queryParams: {%s}}, {%s});`
		post = `api.rest.v1.post("crm", {pathParams: ["things"]}, {}, {name: "ab", kind: "small", size: 1, %s});`
	)
	getCall := func(seg, query, header string) string {
		return fmtCall(get, seg, query, header)
	}
	postCall := func(fields string) string { return fmtCall(post, fields) }
	tests := []struct {
		name  string
		src   string
		want  []want
		skip2 bool // the style 2.0 cannot write (oneOf)
	}{
		// The three cases.
		{name: "query value outside the enum", src: getCall(`"1"`, `state: "opened"`, ""),
			want: []want{{CodeOpenAPIEnum, `"opened"`, `queryParams.state: "opened" is not one of the allowed values "open", "closed", "all"`}}},
		{name: "abc for an integer segment", src: getCall(`"abc"`, "", ""),
			want: []want{{CodeOpenAPIType, `"abc"`, `pathParams[1] (id): "abc" is not an integer`}}},
		{name: "required name under no properties", src: `api.rest.v1.post("crm", {pathParams: ["things"]}, {}, {name: "ab", kind: "small"});`,
			want: []want{{CodeOpenAPIMissingField, `{name: "ab", kind: "small"}`, `requires the payload property "size"`}}},

		// Parameters: a string on the wire, read as the declared type.
		{name: "integer segment", src: getCall(`"12"`, "", "")},
		{name: "integer segment in a template", src: getCall("`x1`", "", ""),
			want: []want{{CodeOpenAPIType, "`x1`", "is not an integer"}}},
		{name: "segment below the minimum", src: getCall(`"0"`, "", ""),
			want: []want{{CodeOpenAPIRange, `"0"`, "0 is below the minimum 1"}}},
		{name: "computed segment", src: getCall(`id`, "", "")},
		{name: "query integer", src: getCall(`"1"`, `per_page: "1e1", state: "all"`, "")},
		{name: "query not an integer", src: getCall(`"1"`, `per_page: "ten"`, ""),
			want: []want{{CodeOpenAPIType, `"ten"`, "queryParams.per_page"}}},
		{name: "query fraction for an integer", src: getCall(`"1"`, `per_page: "1.5"`, ""),
			want: []want{{CodeOpenAPIType, `"1.5"`, `"1.5" is not an integer`}}},
		{name: "query above the maximum", src: getCall(`"1"`, `per_page: "101"`, ""),
			want: []want{{CodeOpenAPIRange, `"101"`, "above the maximum 100"}}},
		{name: "query boolean", src: getCall(`"1"`, `flag: "true"`, "")},
		{name: "query not a boolean", src: getCall(`"1"`, `flag: "yes"`, ""),
			want: []want{{CodeOpenAPIType, `"yes"`, "is not a boolean"}}},
		{name: "query date-time", src: getCall(`"1"`, `since: "2024-01-31T10:00:00Z"`, "")},
		{name: "query not a date-time", src: getCall(`"1"`, `since: "yesterday"`, ""),
			want: []want{{CodeOpenAPIFormat, `"yesterday"`, "format date-time"}}},
		{name: "query array item of the wrong type", src: getCall(`"1"`, `ids: "x"`, ""),
			want: []want{{CodeOpenAPIType, `"x"`, `queryParams.ids: "x" is not an integer, which the service reads the item as`}}},
		{name: "query array item fine", src: getCall(`"1"`, `ids: "7"`, "")},
		{name: "computed query value", src: getCall(`"1"`, `state: s`, "")},
		{name: "header uuid", src: getCall(`"1"`, "", `"x-request-id": "123e4567-e89b-12d3-a456-426614174000"`)},
		{name: "header not a uuid", src: getCall(`"1"`, "", `"X-Request-Id": "nope"`),
			want: []want{{CodeOpenAPIFormat, `"nope"`, `header["X-Request-Id"]: "nope" is not a valid uuid`}}},
		{name: "undeclared header", src: getCall(`"1"`, "", `"X-Other": "nope"`)},

		// The payload, at any depth.
		{name: "payload clean", src: postCall(`email: "a@b.test", site: "https://x.test/a", born: "2024-01-31", count: 1e1, tags: ["a", "b"], address: {city: "B", zip: "12345"}`)},
		{name: "payload enum", src: postCall(`kind: "medium"`),
			want: []want{{CodeOpenAPIEnum, `"medium"`, `payload.kind: "medium" is not one of the allowed values "small", "big"`}}},
		{name: "payload type", src: postCall(`count: "3"`),
			want: []want{{CodeOpenAPIType, `"3"`, "payload.count: a string where an integer is expected"}}},
		{name: "payload pattern", src: postCall(`name: "AB"`),
			want: []want{{CodeOpenAPIPattern, `"AB"`, "does not match the pattern ^[a-z]+$"}}},
		{name: "payload minLength", src: postCall(`name: "a"`),
			want: []want{{CodeOpenAPILength, `"a"`, "payload.name: 1 characters, at least 2"}}},
		{name: "payload maxLength", src: postCall(`name: "abcdefghijk"`),
			want: []want{{CodeOpenAPILength, `"abcdefghijk"`, "at most 10"}}},
		{name: "payload minimum", src: postCall(`count: -1`),
			want: []want{{CodeOpenAPIRange, `-1`, "-1 is below the minimum 0"}}},
		{name: "payload maximum", src: postCall(`count: 11`),
			want: []want{{CodeOpenAPIRange, `11`, "above the maximum 10"}}},
		{name: "payload formats", src: postCall(`email: "nobody", site: "/relative", born: "2024-13-01", code: "x"`),
			want: []want{{CodeOpenAPIFormat, `"nobody"`, "format email"}, {CodeOpenAPIFormat, `"/relative"`, "format uri"}, {CodeOpenAPIFormat, `"2024-13-01"`, "format date"}}},
		{name: "payload items", src: postCall(`tags: ["a", "c"]`),
			want: []want{{CodeOpenAPIEnum, `"c"`, "payload.tags[1]"}}},
		{name: "payload additionalProperties false", src: postCall(`address: {city: "B", colour: "red"}`),
			want: []want{{CodeOpenAPIUnknownField, `colour`, `payload.address: POST /things takes no property "colour" here`}}},
		{name: "payload nested required", src: postCall(`address: {zip: "12345"}`),
			want: []want{{CodeOpenAPIMissingField, `{zip: "12345"}`, `requires the property "city" in payload.address`}}},
		{name: "payload nested pattern", src: postCall(`address: {city: "B", zip: "1"}`),
			want: []want{{CodeOpenAPIPattern, `"1"`, "payload.address.zip"}}},
		{name: "pattern RE2 cannot compile is left out", src: postCall(`address: {city: "B", look: "b"}`)},
		{name: "readOnly required is not asked for", src: postCall(`count: 1`)},
		{name: "nullable null", src: postCall(`note: null`)},
		{name: "nullable string too long", src: postCall(`note: "toolong"`),
			want: []want{{CodeOpenAPILength, `"toolong"`, "payload.note"}}},
		{name: "oneOf one choice", src: postCall(`pet: {meow: true}`), skip2: true},
		{name: "oneOf none", src: postCall(`pet: {meow: "loud"}`), skip2: true,
			want: []want{{CodeOpenAPIValue, `{meow: "loud"}`, "matches none of the 2 choices"}}},
		{name: "oneOf with a computed value", src: postCall(`pet: {meow: m}`), skip2: true},
		{name: "computed field", src: postCall(`kind: k, name: n()`)},
		{name: "spread", src: `api.rest.v1.post("crm", {pathParams: ["things"]}, {}, {...base, kind: "medium"});`},
		{name: "computed key", src: postCall(`[k]: 1, count: 99`)},
		{name: "computed payload", src: `api.rest.v1.post("crm", {pathParams: ["things"]}, {}, body);`},
	}
	for _, style := range schemaStyles {
		disp := thingsDisplay(t, style)
		for _, tc := range tests {
			if tc.skip2 && strings.HasPrefix(style, "2.0") {
				continue
			}
			t.Run(style+"/"+tc.name, func(t *testing.T) {
				var got []want
				for _, d := range Diagnose(NewDocument(tc.src), testRegistry(t), disp) {
					if !strings.HasPrefix(d.Code, "openapi-") {
						continue
					}
					got = append(got, want{d.Code, tc.src[d.Range.Start:d.Range.End], d.Message})
					if d.Severity != SeverityWarning {
						t.Errorf("%s: severity %d, want a warning", d.Code, d.Severity)
					}
				}
				if len(got) != len(tc.want) {
					t.Fatalf("got %d diagnostics, want %d:\n%q", len(got), len(tc.want), got)
				}
				for i, w := range tc.want {
					if got[i].code != w.code || got[i].covers != w.covers || !strings.Contains(got[i].msg, w.msg) {
						t.Errorf("diagnostic %d = %q\nwant code %s covering %q with %q", i, got[i], w.code, w.covers, w.msg)
					}
				}
			})
		}
	}
}

// fmtCall fills the %s of a call template in order.
func fmtCall(tmpl string, parts ...string) string {
	for _, p := range parts {
		tmpl = strings.Replace(tmpl, "%s", p, 1)
	}
	return tmpl
}

// TestLiteralValueCompletion: the values of a path segment, query value
// and payload field come from the same schemas, in each style.
func TestLiteralValueCompletion(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // label=insert text
	}{
		{"segment enum", `api.rest.v1.get("crm", {pathParams: ["things", "1", |]}, {});`,
			[]string{`summary="summary"`, `full="full"`}},
		{"segment enum in a string", `api.rest.v1.get("crm", {pathParams: ["things", "1", "|"]}, {});`,
			[]string{`summary=summary`, `full=full`}},
		{"query enum", `api.rest.v1.get("crm", {pathParams: ["things", "1"], queryParams: {state: "|"}}, {});`,
			[]string{"open=open", "closed=closed", "all=all"}},
		{"query boolean", `api.rest.v1.get("crm", {pathParams: ["things", "1"], queryParams: {flag: |}}, {});`,
			[]string{`true="true"`, `false="false"`}},
		{"payload enum", `api.rest.v1.post("crm", {pathParams: ["things"]}, {}, {kind: |});`,
			[]string{`small="small"`, `big="big"`}},
		{"payload enum in a string", `api.rest.v1.post("crm", {pathParams: ["things"]}, {}, {name: "ab", kind: '|'});`,
			[]string{`small=small`, `big=big`}},
		{"payload without values", `api.rest.v1.post("crm", {pathParams: ["things"]}, {}, {count: |});`, nil},
	}
	for _, style := range schemaStyles {
		disp := thingsDisplay(t, style)
		for _, tc := range tests {
			t.Run(style+"/"+tc.name, func(t *testing.T) {
				text, off := cursor(t, tc.src)
				var got []string
				for _, it := range AppendCompletion(nil, NewDocument(text), off, testRegistry(t), CompleteOptions{Display: disp}).Items {
					if it.Kind == ItemValue && !strings.HasPrefix(it.Label, "{") {
						got = append(got, it.Label+"="+it.InsertText)
					}
				}
				if strings.Join(got, " ") != strings.Join(tc.want, " ") {
					t.Errorf("got %q\nwant %q", got, tc.want)
				}
			})
		}
	}
}

// TestLiteralEnumFix: a quoted string outside an enum is offered the
// nearest allowed value, in a query value, a segment and the payload.
func TestLiteralEnumFix(t *testing.T) {
	disp := thingsDisplay(t, "3.1 json")
	for _, tc := range []struct{ src, fixed string }{
		{`api.rest.v1.get("crm", {pathParams: ["things", "1"], queryParams: {state: "opened"}}, {});`,
			`api.rest.v1.get("crm", {pathParams: ["things", "1"], queryParams: {state: "open"}}, {});`},
		{`api.rest.v1.get("crm", {pathParams: ["things", "1", 'ful']}, {});`,
			`api.rest.v1.get("crm", {pathParams: ["things", "1", 'full']}, {});`},
		{`api.rest.v1.post("crm", {pathParams: ["things"]}, {}, {name: "ab", kind: "smal", size: 1});`,
			`api.rest.v1.post("crm", {pathParams: ["things"]}, {}, {name: "ab", kind: "small", size: 1});`},
	} {
		var fixes []Fix
		for _, d := range Diagnose(NewDocument(tc.src), testRegistry(t), disp) {
			if d.Code == CodeOpenAPIEnum {
				fixes = d.Fixes
			}
		}
		if len(fixes) != 1 {
			t.Fatalf("%s: fixes %+v", tc.src, fixes)
		}
		if got := applyFix(t, tc.src, fixes[0]); got != tc.fixed {
			t.Errorf("fixed\n%s\nwant\n%s", got, tc.fixed)
		}
	}
}
