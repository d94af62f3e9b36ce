package isolate

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// tempPrefix started the name of each run's private directory (its pasted
// fixtures), followed by the server's process id: restls-run-<pid>-<random>.
// Runs make none since pasted fixtures travel in the child's request
// (issue 25); servers of earlier versions that were killed left some.
const tempPrefix = "restls-run-"

// cleanStale removes the run directories under dir that a server killed
// before it could remove them left behind: only those named with a
// process id (restls-run-<pid>-...), owned by this user, whose process is
// gone. Another user's directories, a live server's, and directories of
// older versions (no pid in the name) are left alone: on a shared machine
// nothing else can be known to be stale. It returns how many it removed.
func cleanStale(dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), tempPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		fi, err := e.Info()
		if err != nil || !ownedByMe(fi) || !processGone(pid) {
			continue
		}
		if os.RemoveAll(filepath.Join(dir, e.Name())) == nil {
			n++
		}
	}
	return n
}
