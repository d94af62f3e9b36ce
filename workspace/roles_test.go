package workspace

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRoles: the roles key decodes to grants, its default is viewer, and
// a file without it has no roles (serve's single user is unchanged).
func TestRoles(t *testing.T) {
	p := ParseProject("restls.yaml", []byte(`configRoot: c
roles:
  groups:
    platform-ops: {role: runner, environments: [test], services: [crm, billing]}
    script-authors: {role: mocker}
`))
	if p.HasErrors() {
		t.Fatal(p.Diagnostics)
	}
	want := &Roles{Default: RoleViewer, Groups: map[string]Grant{
		"platform-ops":   {Role: RoleRunner, Environments: []string{"test"}, Services: []string{"crm", "billing"}},
		"script-authors": {Role: RoleMocker},
	}}
	if d := cmp.Diff(want, p.Roles); d != "" {
		t.Error(d)
	}
	p = ParseProject("restls.yaml", []byte("configRoot: c\nroles: {default: none}\n"))
	if p.HasErrors() || p.Roles == nil || p.Roles.Default != RoleNone {
		t.Errorf("default none: %+v %v", p.Roles, p.Diagnostics)
	}
	if p := ParseProject("restls.yaml", []byte("configRoot: c\n")); p.Roles != nil {
		t.Errorf("no roles key: got %+v", p.Roles)
	}
}
