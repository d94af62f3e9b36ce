package hygiene_test

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
	"errors"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"

	"github.com/restls/restls/internal/restlstest"
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

// builtTargets are the targets make dist built: all of them, or those of
// TARGETS (make dist-test passes it on, as make dist does).
func builtTargets(t *testing.T) []struct{ target, goos, goarch string } {
	t.Helper()
	want := strings.Fields(os.Getenv("TARGETS"))
	if len(want) == 0 {
		return distTargets
	}
	var out []struct{ target, goos, goarch string }
	for _, d := range distTargets {
		if slices.Contains(want, d.target) {
			out = append(out, d)
		}
	}
	if len(out) != len(want) {
		t.Fatalf("TARGETS=%q names a target make dist does not know", want)
	}
	return out
}

// distDir returns dist/ when `make dist` has filled it, or skips: the test
// checks what make dist built, and runs with `make dist-test`
// (RESTLS_DIST_TEST=1, which fails rather than skips without dist/).
func distDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(restlstest.Root(t), "dist")
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil || len(sums) == 0 {
		if os.Getenv("RESTLS_DIST_TEST") != "" {
			t.Fatalf("RESTLS_DIST_TEST is set but %s has no SHA256SUMS: run make dist first (%v)", dir, err)
		}
		t.Skip("no dist/: `make dist` then `make dist-test` check the release files")
	}
	return dir
}

// builtVersion is the version make dist stamped, read from the name of
// the universal .vsix, restls-<version>.vsix.
func builtVersion(t *testing.T, dir string) string {
	t.Helper()
	return strings.TrimSuffix(strings.TrimPrefix(filepath.Base(distFile(t, dir, ".vsix")), "restls-"), ".vsix")
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
	t.Parallel()
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
	if n := len(builtTargets(t)); len(listed) != 2*n+1 {
		t.Errorf("SHA256SUMS lists %d files, want %d", len(listed), 2*n+1)
	}
}

// TestDistArchives: each archive holds restls-<version>-<target>/ with
// the binary for its platform, README.md, LICENSE (Apache-2.0) and an
// SPDX document; the linux-x64 binary runs and says what it is.
func TestDistArchives(t *testing.T) {
	t.Parallel()
	dir := distDir(t)
	for _, d := range builtTargets(t) {
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
			for _, d := range repoDocs(t) {
				want = append(want, top+"/"+d)
			}
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
			checkArchiveLinks(t, files, top)
			if d.target == "linux-x64" && runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
				runDistBinary(t, files[top+"/"+exe].data)
				runArchivedHelp(t, files, top, exe)
			}
		})
	}
}

// repoDocs lists docs/ of the source tree, slash-separated from the
// repository root: what every archive must carry.
func repoDocs(t *testing.T) []string {
	t.Helper()
	root := restlstest.Root(t)
	var out []string
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		out = append(out, filepath.ToSlash(rel))
		return err
	})
	if err != nil || len(out) == 0 {
		t.Fatalf("docs/ of the source tree: %v (%d files)", err, len(out))
	}
	return out
}

// codeSpan is inline code, whose brackets are not links.
var codeSpan = regexp.MustCompile("`[^`\n]*`")

// mdLink is a relative Markdown link target: [text](target) with no scheme.
var mdLink = regexp.MustCompile(`\]\(([^)#\s:]+)(?:#[^)\s]*)?\)`)

// checkArchiveLinks: every relative link of README.md and docs/*.md that
// points into docs/ resolves to a file in the archive (README's links were
// dead in an archive without docs/).
func checkArchiveLinks(t *testing.T, files map[string]archived, top string) {
	t.Helper()
	for name, f := range files {
		if !strings.HasSuffix(name, ".md") {
			continue
		}
		text := codeSpan.ReplaceAllString(string(f.data), "")
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := path.Join(path.Dir(name), m[1])
			if !strings.HasPrefix(target, top+"/docs/") {
				continue // a link to a source file, which only a clone has
			}
			if _, ok := files[target]; !ok {
				t.Errorf("%s links to %s, which the archive does not hold", name, m[1])
			}
		}
	}
}

// runArchivedHelp unpacks the archive's binary and docs/ as a user would
// and checks that `restls help` points at that docs/ directory.
func runArchivedHelp(t *testing.T, files map[string]archived, top, exe string) {
	t.Helper()
	dir := t.TempDir()
	for name, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.data, f.mode.Perm()|0o600); err != nil {
			t.Fatal(err)
		}
	}
	out, err := outputOfWritten(filepath.Join(dir, top, exe), "help")
	if err != nil {
		t.Fatalf("restls help: %v", err)
	}
	want := "Documentation: " + filepath.Join(dir, top, "docs") + string(filepath.Separator)
	if !strings.Contains(string(out), want) {
		t.Errorf("restls help from the unpacked archive does not point at its docs/ (want %q):\n%s", want, out)
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
	out, err := outputOfWritten(bin, "version", "--json")
	if err != nil {
		t.Fatalf("restls version --json: %v", err)
	}
	var b buildInfo
	if err := json.Unmarshal(out, &b); err != nil {
		t.Fatalf("restls version --json: %v\n%s", err, out)
	}
	if b.Version == "dev" || b.Version == "" || b.Commit == "" || b.Commit == "unknown" || b.OS != "linux" || b.Arch != "amd64" {
		t.Fatalf("released binary is not stamped: %+v", b)
	}
	// The version make build stamps on that commit: make dist of an
	// untagged commit once stamped the release version v0.1.0.
	if want := stampedVersion(t, restlstest.Root(t), strings.TrimSuffix(b.Commit, "-dirty")); b.Version != want {
		t.Errorf("make dist stamped version %q on commit %s, want %q, as make build does", b.Version, b.Commit, want)
	}
	text, err := outputOfWritten(bin, "version")
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
	t.Parallel()
	dir := distDir(t)
	for _, d := range builtTargets(t) {
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
			checkVSIXSchemas(t, files)
			checkVSIXReadme(t, files)
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
		checkVSIXSchemas(t, files)
		checkVSIXReadme(t, files)
	})
}

// checkVSIXSchemas: the .vsix carries the fixture and script test schemas
// and associates them with their files (contributes.yamlValidation).
func checkVSIXSchemas(t *testing.T, files map[string]archived) {
	t.Helper()
	var pkg struct {
		Contributes struct {
			YAMLValidation []struct {
				FileMatch []string `json:"fileMatch"`
				URL       string   `json:"url"`
			} `json:"yamlValidation"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(files["extension/package.json"].data, &pkg); err != nil {
		t.Fatalf("extension/package.json: %v", err)
	}
	associated := map[string]string{}
	for _, v := range pkg.Contributes.YAMLValidation {
		for _, m := range v.FileMatch {
			associated[m] = v.URL
		}
	}
	for glob, schema := range map[string]string{"*.mock.yaml": "dist/mock.schema.json", "*.test.yaml": "dist/test.schema.json", "restls.yaml": "dist/restls.schema.json"} {
		if associated[glob] != "./"+schema {
			t.Errorf("the .vsix associates %s with %q, want ./%s", glob, associated[glob], schema)
		}
		var doc map[string]any
		if err := json.Unmarshal(files["extension/"+schema].data, &doc); err != nil {
			t.Errorf("the .vsix has no valid extension/%s: %v", schema, err)
		}
	}
	if !bytes.Contains(files["extension/dist/test.schema.json"].data, []byte(`"./mock.schema.json#/$defs/fixtureList"`)) {
		t.Errorf("extension/dist/test.schema.json does not refer to the fixture schema beside it")
	}
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

// markdownImage is the target of a Markdown image, ![alt](target).
var markdownImage = regexp.MustCompile(`!\[[^\]]*\]\(([^)\s]+)`)

// TestVSIXReadmeImagesPackaged: the extension's README shows its images
// from the .vsix itself, offline: each is a relative path to a file
// .vscodeignore lets into the package (Docker's matcher reads its
// patterns alike), and vsce is told not to rewrite relative links to a
// web address (it does by default). The packaged README pointed its
// images at a web address, and two of the four were not packaged.
// TestDistVSIX checks the .vsix make dist built.
func TestVSIXReadmeImagesPackaged(t *testing.T) {
	t.Parallel()
	ext := filepath.Join(restlstest.Root(t), "vscode-extension")
	readme, err := os.ReadFile(filepath.Join(ext, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(ext, ".vscodeignore"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	patterns, err := ignorefile.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	pm, err := patternmatcher.New(patterns)
	if err != nil {
		t.Fatal(err)
	}
	images := markdownImage.FindAllSubmatch(readme, -1)
	if len(images) < 4 {
		t.Fatalf("found %d images in vscode-extension/README.md: the pattern no longer matches", len(images))
	}
	for _, m := range images {
		img := string(m[1])
		if strings.Contains(img, "://") || path.IsAbs(img) || strings.HasPrefix(img, "..") {
			t.Errorf("README.md image %s: want a path relative to vscode-extension/, inside it", img)
			continue
		}
		if _, err := os.Stat(filepath.Join(ext, filepath.FromSlash(img))); err != nil {
			t.Errorf("README.md image %s: %v", img, err)
		}
		if excluded, err := pm.MatchesOrParentMatches(path.Clean(img)); err != nil || excluded {
			t.Errorf("README.md image %s is left out of the .vsix by .vscodeignore (%v)", img, err)
		}
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	data, err := os.ReadFile(filepath.Join(ext, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatal(err)
	}
	dist, err := os.ReadFile(filepath.Join(restlstest.Root(t), "scripts", "dist.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for name, cmd := range map[string]string{"npm run package": pkg.Scripts["package"], "scripts/dist.sh": string(dist)} {
		if !strings.Contains(cmd, "vsce package") || !strings.Contains(cmd, "--no-rewrite-relative-links") || strings.Contains(cmd, "--baseImagesUrl") {
			t.Errorf("%s: vsce package must keep README's images relative (--no-rewrite-relative-links, no --baseImagesUrl)", name)
		}
	}
}

// checkVSIXReadme: the README in a .vsix names its images by relative
// paths, and the .vsix holds each of them.
func checkVSIXReadme(t *testing.T, files map[string]archived) {
	t.Helper()
	readme, ok := files["extension/readme.md"]
	if !ok {
		t.Fatal("the .vsix has no extension/readme.md")
	}
	images := markdownImage.FindAllSubmatch(readme.data, -1)
	if len(images) == 0 {
		t.Error("the .vsix README shows no image")
	}
	for _, m := range images {
		img := string(m[1])
		if _, ok := files["extension/"+path.Clean(img)]; !ok || strings.Contains(img, "://") {
			t.Errorf("the .vsix README shows %s, which the .vsix does not hold", img)
		}
	}
}

// outputOfWritten is the output of bin, a file this process has just
// written, run with args. While it was open for writing, a test running in
// parallel may have started a process, which then held the descriptor
// until its exec: running bin fails with ETXTBSY ("text file busy") in
// that window, so it is tried again for up to a second.
func outputOfWritten(bin string, args ...string) ([]byte, error) {
	for wait := time.Millisecond; ; wait *= 2 {
		out, err := exec.Command(bin, args...).Output()
		if !errors.Is(err, syscall.ETXTBSY) || wait > time.Second {
			return out, err
		}
		time.Sleep(wait)
	}
}
