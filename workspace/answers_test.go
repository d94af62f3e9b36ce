package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restls/restls/config"
	"github.com/restls/restls/runtime/restclient"
)

// TestSnapshotCheckAnswers: a run's answers are checked by the snapshot
// of the session it came from, against the session's one store (the
// editor's, the designer's and restls run's snapshots share it); a
// snapshot made without a store checks nothing, and the run engine gives
// it its own.
func TestSnapshotCheckAnswers(t *testing.T) {
	dir := t.TempDir()
	xml := filepath.Join(dir, "script-service-api.xml")
	desc := filepath.Join(dir, "shop.json")
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(xml, `<scriptservice><api serviceId="shop" url="http://shop.test/api"/></scriptservice>`)
	write(desc, `{"openapi":"3.1.0","info":{"title":"Shop","version":"1"},"paths":{"/orders/{id}":{"get":{
		"responses":{"200":{"description":"ok"},"404":{"description":"none"}}}}}}`)
	apis := []APISource{{ServiceID: "shop", Location: desc}}
	sess := NewSession(SessionOptions{Sources: config.Sources{ServiceXML: xml}, APIs: apis})
	call := func() *restclient.Call {
		return &restclient.Call{ServiceID: "shop", Method: "GET", URL: "http://shop.test/api/orders/7", Status: &restclient.Status{Code: 409}}
	}
	snap := sess.Snapshot()
	if !snap.ChecksAnswers() {
		t.Fatal("a session's snapshot has no answer store")
	}
	if other := sess.Snapshot(); other.answers != snap.answers || other.answersAttach != snap.answersAttach {
		t.Error("two snapshots of one session check answers with different stores")
	}
	reg := snap.Config.For(config.ScriptService)
	c := call()
	snap.CheckAnswers(context.Background(), reg, []*restclient.Call{c}, nil)
	if len(c.Contract) != 1 || c.Contract[0].Rule != "status" || !strings.Contains(c.Contract[0].Message, "409 is not documented") {
		t.Errorf("contract notes %+v, want the undocumented status", c.Contract)
	}
	bare := NewSnapshot(snap.Config, nil, apis, nil, nil, nil)
	c = call()
	bare.CheckAnswers(context.Background(), reg, []*restclient.Call{c}, nil)
	if bare.ChecksAnswers() || len(c.Contract) != 0 {
		t.Errorf("a snapshot without a store checked: %+v", c.Contract)
	}
}
