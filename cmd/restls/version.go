package main

import (
	"fmt"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func versionString() string {
	v := version
	if bi, ok := debug.ReadBuildInfo(); ok && v == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	return v
}

func runVersion(env *cliEnv, args []string) int {
	fs := newFlagSet(env, "version", "", "Prints the version of restls and the Go version it was built with.")
	if rc := parseFlags(env, fs, args); rc >= 0 {
		return rc
	}
	goVersion := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
	}
	fmt.Fprintf(env.stdout, "restls %s (%s)\n", versionString(), goVersion)
	return 0
}
