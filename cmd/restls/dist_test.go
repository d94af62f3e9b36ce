package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// distTargets are the targets of `make dist` (scripts/dist.sh): VS Code's
// name, and the binary's format and machine.
var distTargets = []struct {
	target, goos, goarch string
}{
	{"linux-x64", "linux", "amd64"},
	{"linux-arm64", "linux", "arm64"},
	{"darwin-x64", "darwin", "amd64"},
	{"darwin-arm64", "darwin", "arm64"},
	{"win32-x64", "windows", "amd64"},
}

// distDir returns dist/ when `make dist` has filled it, or skips: the test
// checks what make dist built, and runs with `make dist-test`
// (RESTLS_DIST_TEST=1, which fails rather than skips without dist/).
func distDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(repoRoot(t), "dist")
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil || len(sums) == 0 {
		if os.Getenv("RESTLS_DIST_TEST") != "" {
			t.Fatalf("RESTLS_DIST_TEST is set but %s has no SHA256SUMS: run make dist first (%v)", dir, err)
		}
		t.Skip("no dist/: `make dist` then `make dist-test` check the release files")
	}
	return dir
}

// distFile returns the one file in dir matching restls-*<suffix>.
func distFile(t *testing.T, dir, suffix string) string {
	t.Helper()
	all, _ := filepath.Glob(filepath.Join(dir, "restls-*"+suffix))
	var m []string
	for _, f := range all {
		// restls-v1-linux-x64.vsix, not restls-v1-linux-x64-extra.vsix;
		// the universal restls-v1.vsix has no target at all.
		base := strings.TrimSuffix(filepath.Base(f), suffix)
		if suffix == ".vsix" && slices.ContainsFunc(distTargets, func(d struct{ target, goos, goarch string }) bool {
			return strings.HasSuffix(base, "-"+d.target)
		}) {
			continue
		}
		m = append(m, f)
	}
	if len(m) != 1 {
		t.Fatalf("want one dist/restls-*%s, found %q", suffix, m)
	}
	return m[0]
}

// checkBinary fails unless data is an executable for goos/goarch.
func checkBinary(t *testing.T, name string, data []byte, goos, goarch string) {
	t.Helper()
	r := bytes.NewReader(data)
	switch goos {
	case "linux":
		f, err := elf.NewFile(r)
		if err != nil {
			t.Fatalf("%s: not ELF: %v", name, err)
		}
		want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[goarch]
		if f.Machine != want || f.Type != elf.ET_EXEC || f.Class != elf.ELFCLASS64 {
			t.Errorf("%s: ELF %v %v %v, want %v executable", name, f.Class, f.Type, f.Machine, want)
		}
	case "darwin":
		f, err := macho.NewFile(r)
		if err != nil {
			t.Fatalf("%s: not Mach-O: %v", name, err)
		}
		want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[goarch]
		if f.Cpu != want || f.Type != macho.TypeExec {
			t.Errorf("%s: Mach-O %v %v, want %v executable", name, f.Cpu, f.Type, want)
		}
	case "windows":
		f, err := pe.NewFile(r)
		if err != nil {
			t.Fatalf("%s: not PE: %v", name, err)
		}
		if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 || f.Characteristics&pe.IMAGE_FILE_EXECUTABLE_IMAGE == 0 {
			t.Errorf("%s: PE machine %#x characteristics %#x, want an AMD64 executable", name, f.Machine, f.Characteristics)
		}
		if oh, ok := f.OptionalHeader.(*pe.OptionalHeader64); !ok || oh.Subsystem != pe.IMAGE_SUBSYSTEM_WINDOWS_CUI {
			t.Errorf("%s: not a 64-bit console program", name)
		}
	default:
		t.Fatalf("unknown goos %s", goos)
	}
}

// TestDistSHA256SUMS: every file of dist/ is listed, and matches.
func TestDistSHA256SUMS(t *testing.T) {
	dir := distDir(t)
	f, err := os.Open(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	listed := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS: bad line %q (want sha256sum's '<hex>  <name>')", sc.Text())
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("SHA256SUMS names %s: %v", name, err)
		}
		got := sha256.Sum256(data)
		if hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: sha256 %x, SHA256SUMS says %s", name, got, sum)
		}
		listed[name] = true
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() && e.Name() != "SHA256SUMS" && !listed[e.Name()] {
			t.Errorf("dist/%s is not in SHA256SUMS", e.Name())
		}
	}
	// Five archives, five platform .vsix files and the universal one.
	if len(listed) != 2*len(distTargets)+1 {
		t.Errorf("SHA256SUMS lists %d files, want %d", len(listed), 2*len(distTargets)+1)
	}
}

// TestDistArchives: each archive holds restls-<version>-<target>/ with
// the binary for its platform, README.md, LICENSE (Apache-2.0) and an
// SPDX document; the linux-x64 binary runs and says what it is.
func TestDistArchives(t *testing.T) {
	dir := distDir(t)
	for _, d := range distTargets {
		t.Run(d.target, func(t *testing.T) {
			ext, exe := ".tar.gz", "restls"
			if d.goos == "windows" {
				ext, exe = ".zip", "restls.exe"
			}
			file := distFile(t, dir, "-"+d.target+ext)
			top := strings.TrimSuffix(filepath.Base(file), ext)
			files := readArchive(t, file)
			var names []string
			for n := range files {
				names = append(names, n)
			}
			slices.Sort(names)
			want := []string{top + "/LICENSE", top + "/README.md", top + "/" + exe, top + "/restls.spdx"}
			slices.Sort(want)
			if !slices.Equal(names, want) {
				t.Fatalf("%s holds %q, want %q", filepath.Base(file), names, want)
			}
			checkBinary(t, exe, files[top+"/"+exe].data, d.goos, d.goarch)
			if d.goos != "windows" && files[top+"/"+exe].mode&0o111 == 0 {
				t.Errorf("%s is not executable in the archive (mode %v)", exe, files[top+"/"+exe].mode)
			}
			lic := string(files[top+"/LICENSE"].data)
			if !strings.Contains(lic, "Apache License") || !strings.Contains(lic, "Version 2.0, January 2004") {
				t.Errorf("LICENSE is not the Apache-2.0 text")
			}
			if !strings.Contains(string(files[top+"/restls.spdx"].data), "PackageLicenseDeclared: Apache-2.0") {
				t.Errorf("restls.spdx does not declare Apache-2.0:\n%s", files[top+"/restls.spdx"].data)
			}
			if d.target == "linux-x64" && runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
				runDistBinary(t, files[top+"/"+exe].data)
			}
		})
	}
}

// runDistBinary runs `restls version --json` and `restls version` of a
// released binary: stamped, not "dev", and for this platform.
func runDistBinary(t *testing.T, data []byte) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "restls")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatalf("restls version --json: %v", err)
	}
	var b buildInfo
	if err := json.Unmarshal(out, &b); err != nil {
		t.Fatalf("restls version --json: %v\n%s", err, out)
	}
	if b.Version == "dev" || b.Version == "" || b.Commit == "" || b.Commit == "unknown" || b.OS != "linux" || b.Arch != "amd64" {
		t.Errorf("released binary is not stamped: %+v", b)
	}
	text, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("restls version: %v", err)
	}
	if string(text) != b.text() {
		t.Errorf("restls version = %q, want %q", text, b.text())
	}
}

// TestDistVSIX: each platform .vsix carries its binary at
// extension/bin/<target>/restls[.exe] (docs/vscode.md, "Packaging"),
// executable, and declares that target; the universal one has no binary.
func TestDistVSIX(t *testing.T) {
	dir := distDir(t)
	for _, d := range distTargets {
		t.Run(d.target, func(t *testing.T) {
			file := distFile(t, dir, "-"+d.target+".vsix")
			files := readArchive(t, file)
			exe := "restls"
			if d.goos == "windows" {
				exe = "restls.exe"
			}
			want := "extension/bin/" + d.target + "/" + exe
			var bins []string
			for n := range files {
				if strings.HasPrefix(n, "extension/bin/") {
					bins = append(bins, n)
				}
			}
			if len(bins) != 1 || bins[0] != want {
				t.Fatalf("%s: binaries %q, want exactly %s", filepath.Base(file), bins, want)
			}
			checkBinary(t, want, files[want].data, d.goos, d.goarch)
			if d.goos != "windows" && files[want].mode&0o111 == 0 {
				t.Errorf("%s is not executable in the .vsix (mode %v)", want, files[want].mode)
			}
			checkVSIXManifest(t, files, d.target)
			if d.target == "linux-x64" && runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
				runDistBinary(t, files[want].data)
			}
		})
	}
	t.Run("universal", func(t *testing.T) {
		file := distFile(t, dir, ".vsix")
		files := readArchive(t, file)
		for n := range files {
			if strings.HasPrefix(n, "extension/bin/") {
				t.Errorf("%s: the universal .vsix holds %s", filepath.Base(file), n)
			}
		}
		checkVSIXManifest(t, files, "")
	})
}

// checkVSIXManifest checks the package.json and the target the .vsix
// declares, and that it carries the licence.
func checkVSIXManifest(t *testing.T, files map[string]archived, target string) {
	t.Helper()
	var pkg struct {
		License string `json:"license"`
	}
	if err := json.Unmarshal(files["extension/package.json"].data, &pkg); err != nil || pkg.License != "Apache-2.0" {
		t.Errorf("extension/package.json license = %q (%v), want Apache-2.0", pkg.License, err)
	}
	if _, ok := files["extension/LICENSE.txt"]; !ok {
		if _, ok := files["extension/LICENSE"]; !ok {
			t.Errorf("the .vsix has no LICENSE")
		}
	}
	manifest := string(files["extension.vsixmanifest"].data)
	has := strings.Contains(manifest, `TargetPlatform="`)
	if target == "" && has || target != "" && !strings.Contains(manifest, `TargetPlatform="`+target+`"`) {
		t.Errorf("extension.vsixmanifest target: want %q, manifest:\n%s", target, manifest)
	}
}

type archived struct {
	data []byte
	mode os.FileMode
}

// readArchive returns the regular files of a .tar.gz or a zip (.zip,
// .vsix) by slash-separated name.
func readArchive(t *testing.T, file string) map[string]archived {
	t.Helper()
	out := map[string]archived{}
	if strings.HasSuffix(file, ".tar.gz") {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		tr := tar.NewReader(gz)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if h.Typeflag != tar.TypeReg {
				continue
			}
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			out[path.Clean(h.Name)] = archived{data, h.FileInfo().Mode()}
		}
		return out
	}
	zr, err := zip.OpenReader(file)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	defer zr.Close()
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatalf("%s: %s: %v", file, f.Name, err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %s: %v", file, f.Name, err)
		}
		out[path.Clean(f.Name)] = archived{data, f.Mode()}
	}
	return out
}
