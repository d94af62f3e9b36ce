package workspace

import (
	"errors"
	"slices"
	"testing"

	"github.com/restls/restls/config"
)

// TestPick: the one environment rule. The name asked wins, else the
// default (--env, else the file's defaultEnvironment), else none; an
// unknown name is an UnknownEnvironmentError naming the known ones; a
// client's own environments win over the file's of the same name and
// join its list.
func TestPick(t *testing.T) {
	p := ParseProject("/p/restls.yaml", []byte("configRoot: base\nenvironments:\n  test: {}\n  prod: {configRoot: prod}\ndefaultEnvironment: test\n"))
	if p.HasErrors() {
		t.Fatal(p.Diagnostics)
	}
	flags := config.Sources{ServiceXML: "/flags/services.xml"}
	complete := func(s config.Sources) config.Sources { return s.Override(flags) }
	envs, err := NewEnvironments(p, "", complete)
	if err != nil {
		t.Fatal(err)
	}
	byFlag, err := NewEnvironments(p, "prod", complete)
	if err != nil {
		t.Fatal(err)
	}
	var none Environments
	for _, tc := range []struct {
		name  string
		e     Environments
		asked string
		want  string
		known []string // set: an unknown name listing these
	}{
		{"asked", envs, "prod", "prod", nil},
		{"the file's default", envs, "", "test", nil},
		{"--env", byFlag, "", "prod", nil},
		{"asked over --env", byFlag, "test", "test", nil},
		{"unknown", envs, "stage", "", []string{"prod", "test"}},
		{"no environments", none, "", "", nil},
		{"no environments, one asked", none, "test", "", []string{}},
	} {
		got, err := tc.e.Pick(tc.asked)
		var unknown *UnknownEnvironmentError
		switch {
		case tc.known != nil:
			if !errors.As(err, &unknown) || !errors.Is(err, ErrUnknownEnvironment) || !slices.Equal(unknown.Known, tc.known) {
				t.Errorf("%s: Pick(%q) = %q, %v; want an unknown environment listing %v", tc.name, tc.asked, got, err, tc.known)
			}
		case err != nil || got != tc.want:
			t.Errorf("%s: Pick(%q) = %q, %v; want %q", tc.name, tc.asked, got, err, tc.want)
		}
	}
	if src, _ := envs.Sources("prod"); src.ConfigRoot != "/p/prod" || src.ServiceXML != "/flags/services.xml" {
		t.Errorf("prod's sources %+v: want the file's keys under the flags", src)
	}
	if _, err := NewEnvironments(p, "prd", nil); !errors.Is(err, ErrUnknownEnvironment) {
		t.Errorf("--env prd: %v", err)
	}

	client := map[string]int{"local": 1, "prod": 2}
	if c, v, err := PickFrom(envs, "prod", client); err != nil || c != (Choice{Name: "prod", Client: true}) || v != 2 {
		t.Errorf("PickFrom prod = %+v, %d, %v: the client's own wins", c, v, err)
	}
	if c, _, err := PickFrom(envs, "", client); err != nil || c != (Choice{Name: "test"}) {
		t.Errorf("PickFrom \"\" = %+v, %v: the default", c, err)
	}
	var unknown *UnknownEnvironmentError
	if _, _, err := PickFrom(envs, "stage", client); !errors.As(err, &unknown) || !slices.Equal(unknown.Known, []string{"local", "prod", "test"}) {
		t.Errorf("PickFrom stage: %v; want both lists", err)
	}
	if got := NamesWith(envs, client); !slices.Equal(got, []string{"local", "prod", "test"}) {
		t.Errorf("NamesWith = %v", got)
	}
	if got := NamesWith[int](none, nil); got != nil {
		t.Errorf("NamesWith of nothing = %v", got)
	}
}

// TestSnapshotIn: a surface that names an environment per request gets
// that environment's registry and name, the default's for none, and the
// rule's refusal for an unknown one.
func TestSnapshotIn(t *testing.T) {
	p := ParseProject("/p/restls.yaml", []byte("configRoot: base\nenvironments:\n  test: {}\n  prod: {configRoot: prod}\ndefaultEnvironment: test\n"))
	envs, err := NewEnvironments(p, "", func(s config.Sources) config.Sources { return s })
	if err != nil {
		t.Fatal(err)
	}
	def, _ := envs.Sources("test")
	load := func(src config.Sources) *config.Snapshot { return &config.Snapshot{Sources: src} }
	s := NewSession(SessionOptions{Sources: def, Load: load, Environments: envs})
	for asked, want := range map[string]struct{ env, root string }{"": {"test", "/p/base"}, "test": {"test", "/p/base"}, "prod": {"prod", "/p/prod"}} {
		snap, err := s.SnapshotIn(asked)
		if err != nil || snap.Environment != want.env || snap.Config.Sources.ConfigRoot != want.root {
			t.Errorf("SnapshotIn(%q) = %q, %+v, %v; want %q with root %s", asked, snap.Environment, snap.Config, err, want.env, want.root)
		}
	}
	if _, err := s.SnapshotIn("stage"); !errors.Is(err, ErrUnknownEnvironment) {
		t.Errorf("SnapshotIn(stage): %v, want an unknown environment", err)
	}
}
