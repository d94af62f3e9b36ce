package check

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restls/restls/config"
	"github.com/restls/restls/workspace"
)

// shopDescription: GET /orders/{id} answers 200 with an order or 404;
// POST /orders answers 201.
const shopDescription = `openapi: 3.0.3
info: {title: Shop, version: "1"}
paths:
  /orders/{id}:
    get:
      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                required: [id]
                properties:
                  id: {type: integer}
                  state: {type: string, enum: [open, shipped]}
        "404": {description: none}
`

// TestRunFixtures (issue 27): restls check reports the fixtures, beside
// scripts and inline in test files, whose answers break the description
// of their serviceId, at the status or the body's value at fault; a
// fixture of another service, with "**" or without a method is not
// checked.
func TestRunFixtures(t *testing.T) {
	root := writeTree(t, map[string]string{
		"apis/shop.yaml":  shopDescription,
		"application.yml": "scriptservice:\n  api:\n    - serviceId: shop\n      url: https://shop.example.com/api\n    - serviceId: other\n      url: https://other.example.com\n",
		"orders.js":       `api.rest.v1.get("shop", {pathParams: ["orders", "1"]}, {});`,
		"orders.mock.yaml": `fixtures:
  - serviceId: shop
    method: GET
    path: orders/1
    body:
      id: 1
      state: lost
  - serviceId: shop
    method: GET
    path: orders/*
    status: 500
  - serviceId: shop
    path: orders/3
    status: 500
  - serviceId: shop
    method: GET
    path: "**"
    status: 500
  - serviceId: other
    method: GET
    path: orders/1
    status: 500
`,
		"json/orders.mock.json": `[{"serviceId": "shop", "method": "GET", "path": "orders/2",
  "body": {"id": "two"}}]`,
		"tests/orders.test.yaml": `script: ../orders.js
cases:
  - name: shipped
    fixtures:
      - {serviceId: shop, method: GET, path: orders/1, body: {id: 1, state: shipped}}
  - name: gone
    fixtures:
      - serviceId: shop
        method: GET
        path: orders/1
        status: 410
`,
	})
	snap := config.Load(config.Sources{Properties: []string{filepath.Join(root, "application.yml")}})
	ws := workspace.NewSession(workspace.SessionOptions{Load: func(config.Sources) *config.Snapshot { return snap },
		APIs: []workspace.APISource{{ServiceID: "shop", Location: filepath.Join(root, "apis", "shop.yaml")}}})
	rep, err := Run(Options{Paths: []string{root}, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		if f.Code == workspace.CodeFixtureBody || f.Code == workspace.CodeFixtureStatus {
			r, _ := filepath.Rel(root, f.File)
			got = append(got, fmt.Sprintf("%s:%d:%d %s %s", filepath.ToSlash(r), f.Line, f.Column, f.Code, f.Message))
		}
	}
	want := []string{
		"json/orders.mock.json:2:18 openapi-fixture-body fixture 1 (serviceId shop): GET /orders/{id}, status 200: /id: got string, want integer",
		"orders.mock.yaml:7:14 openapi-fixture-body fixture 1 (serviceId shop): GET /orders/{id}, status 200: /state: value must be one of 'open', 'shipped'",
		"orders.mock.yaml:11:13 openapi-fixture-status fixture 2 (serviceId shop): GET /orders/{id}: status 500 is not documented (it documents 200, 404); answer with a documented status, or document it in the description",
		"tests/orders.test.yaml:11:17 openapi-fixture-status fixture 1 (serviceId shop): GET /orders/{id}: status 410 is not documented (it documents 200, 404); answer with a documented status, or document it in the description",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("fixture findings (-want +got):\n%s", d)
	}
}
