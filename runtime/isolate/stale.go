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
//
// Every server start (Options.Sweep) sweeps the whole temporary
// directory, which on a shared machine holds tens of thousands of
// entries: the names are read in batches, unsorted, and only those with
// the prefix are looked at (os.ReadDir sorted 64,000 entries and made a
// DirEntry of each, about 50 ms of CPU, more than half a trivial run's).
func cleanStale(dir string) int {
	f, err := os.Open(dir)
	if err != nil {
		return 0
	}
	var stale []string
	for {
		names, err := f.Readdirnames(1024)
		for _, name := range names {
			rest, ok := strings.CutPrefix(name, tempPrefix)
			if !ok {
				continue
			}
			pidText, _, ok := strings.Cut(rest, "-")
			pid, err := strconv.Atoi(pidText)
			if !ok || err != nil || pid <= 0 || pid == os.Getpid() {
				continue
			}
			fi, err := os.Lstat(filepath.Join(dir, name))
			if err != nil || !fi.IsDir() || !ownedByMe(fi) || !processGone(pid) {
				continue
			}
			stale = append(stale, name)
		}
		if err != nil || len(names) == 0 {
			break
		}
	}
	_ = f.Close()
	n := 0
	for _, name := range stale {
		if os.RemoveAll(filepath.Join(dir, name)) == nil {
			n++
		}
	}
	return n
}
