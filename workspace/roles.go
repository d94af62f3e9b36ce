package workspace

import (
	"fmt"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v4"

	"github.com/restls/restls/config"
)

// Role names of the roles key, weakest first: a viewer gets hints and /lsp
// without runs, a mocker dry runs answered by fixtures, a runner live dry
// runs too. RoleNone refuses the user everything.
const (
	RoleNone   = "none"
	RoleViewer = "viewer"
	RoleMocker = "mocker"
	RoleRunner = "runner"
)

// RoleNames are the roles a grant may name, weakest first.
var RoleNames = []string{RoleNone, RoleViewer, RoleMocker, RoleRunner}

// Grant is what one group (or claim value) is given: a role and, for a
// runner, the environments and serviceIds its live runs are limited to
// (empty: all).
type Grant struct {
	Role         string
	Environments []string
	Services     []string
}

// Roles is the roles key of the project file: serve --http --auth oidc or
// proxy gives each user the strongest grant among their groups, or
// Default when none is listed.
type Roles struct {
	// Default is the role of a signed-in user whose groups are not
	// listed: viewer unless the file says otherwise.
	Default string
	// Groups maps a group (or a value of the role claim) to its grant.
	Groups map[string]Grant
}

// decodeRoles checks the roles key; nil when the file has none.
func decodeRoles(raw rawRoles, root *yaml.Node, diag diagFunc) *Roles {
	n := keyOf(root, "roles")
	if n.Kind == 0 {
		return nil
	}
	roles := valueOf(root, "roles")
	place := func(m *yaml.Node) *yaml.Node {
		if m.Kind == 0 {
			return n
		}
		return m
	}
	valid := func(role, where string, at *yaml.Node) bool {
		for _, r := range RoleNames {
			if role == r {
				return true
			}
		}
		diag(at.Line, at.Column, CodeInvalid, "roles: %s %q is not a role: give one of %s", where, role, strings.Join(RoleNames, ", "))
		return false
	}
	r := &Roles{Default: RoleViewer, Groups: map[string]Grant{}}
	if raw.Default != "" && valid(raw.Default, "default", place(valueOf(roles, "default"))) {
		r.Default = raw.Default
	}
	names := make([]string, 0, len(raw.Groups))
	for g := range raw.Groups {
		names = append(names, g)
	}
	sort.Strings(names)
	for _, g := range names {
		gr := raw.Groups[g]
		at := place(keyOf(valueOf(roles, "groups"), g))
		if gr.Role == "" {
			diag(at.Line, at.Column, CodeInvalid, "roles: group %q needs a role (one of %s)", g, strings.Join(RoleNames, ", "))
			continue
		}
		if !valid(gr.Role, fmt.Sprintf("group %q: role", g), at) {
			continue
		}
		if gr.Role != RoleRunner && (len(gr.Environments) > 0 || len(gr.Services) > 0) {
			diag(at.Line, at.Column, CodeInvalid, "roles: group %q: environments and services limit live runs, which only the role runner has; remove them or make the role runner", g)
			continue
		}
		if !validServices(gr.Services, valueOf(valueOf(valueOf(roles, "groups"), g), "services"), g, at, diag) {
			continue
		}
		r.Groups[g] = Grant(gr)
	}
	return r
}

// validServices says, for each serviceId of group g's services list (seq;
// at when it has no node of its own) that is empty or holds a control
// character, that it names no service (config's service-bad-id rule): an
// empty id once allowed every service, a live run now none.
func validServices(ids []string, seq *yaml.Node, g string, at *yaml.Node, diag diagFunc) bool {
	ok := true
	for i, id := range ids {
		where := at
		if seq.Kind == yaml.SequenceNode && i < len(seq.Content) {
			where = seq.Content[i]
		}
		if id == "" {
			diag(where.Line, where.Column, CodeInvalid, "roles: group %q: services item %d is empty: write the serviceId the group's live runs may call, or remove the item (no services list allows every service)", g, i+1)
			ok = false
		} else if r, b, bad := config.ControlChar(id); bad {
			diag(where.Line, where.Column, CodeInvalid, "roles: group %q: services item %d, serviceId %q, contains the control character %U at byte %d, which no serviceId holds: write the serviceId as the configuration defines it", g, i+1, id, r, b)
			ok = false
		}
	}
	return ok
}
