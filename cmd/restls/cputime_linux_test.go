package main

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// processCPUTime is the user plus system CPU time another process has
// used so far, from /proc/PID/stat (utime and stime, in clock ticks of
// 1/100 s: USER_HZ is 100 on every Linux the tests run on).
func processCPUTime(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name in parentheses may hold spaces: fields count from
	// the last ")".
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}
