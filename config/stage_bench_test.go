package config

import (
	"os"
	"path/filepath"
	"testing"
)

// The stages of BenchmarkLoad, to see where a load's time goes.
func benchStage(b *testing.B, f func(dir string, y, x []byte)) {
	dir := b.TempDir()
	writeLargeConfig(b, dir, 10000)
	y, _ := os.ReadFile(filepath.Join(dir, "application.yml"))
	x, _ := os.ReadFile(filepath.Join(dir, ServiceXMLPath))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		f(dir, y, x)
	}
}

func BenchmarkStageYAML(b *testing.B) {
	benchStage(b, func(_ string, y, _ []byte) { parseYAML("a.yml", y) })
}

func BenchmarkStageXML(b *testing.B) {
	benchStage(b, func(_ string, _, x []byte) { parseServiceXML("s.xml", x) })
}

func BenchmarkStageMerge(b *testing.B) {
	dir := b.TempDir()
	writeLargeConfig(b, dir, 10000)
	y, _ := os.ReadFile(filepath.Join(dir, "application.yml"))
	x, _ := os.ReadFile(filepath.Join(dir, ServiceXMLPath))
	srcs := []*parsed{parseYAML("a.yml", y), parseServiceXML("s.xml", x)}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		merge(ScriptService, srcs)
	}
}
