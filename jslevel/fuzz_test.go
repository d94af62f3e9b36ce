package jslevel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCheck: no script makes the detector panic, hang or report outside
// the text, at any level; the text scanners (trailing commas, regular
// expression patterns) are reached through it and fuzzed on their own.
func FuzzCheck(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*", "*", "*.js"))
	var all strings.Builder
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err == nil {
			f.Add(string(data), uint8(ES5_1))
			all.Write(data)
			all.WriteString(";\n")
		}
	}
	// Large: the whole corpus, many times; deep: arrows and brackets
	// nested close to the budget, patterns nested deep.
	f.Add(strings.Repeat(all.String(), 20), uint8(ES5_1))
	f.Add("return "+strings.Repeat("x => ", 900)+"1;", uint8(ES2015))
	f.Add("var a = "+strings.Repeat("[", 950)+strings.Repeat("]", 950)+";", uint8(ES5_1))
	f.Add("var o = "+strings.Repeat("{a: ", 900)+"1"+strings.Repeat("}", 900)+";", uint8(ES5_1))
	f.Add("f(a /* , */, // )\n)", uint8(ES2016))
	f.Add("/(?<a>x)[(?<=]\\p{L}(?<!y)/u", uint8(ES2017))
	f.Add(strings.Repeat("a?.b ?? ", 2000)+"c", uint8(ES2019))
	f.Fuzz(func(t *testing.T, text string, l uint8) {
		level := Level(l % uint8(len(names)))
		for _, u := range Check(text, level) {
			if u.Start < 0 || u.End < u.Start || u.End > len(text) {
				t.Fatalf("use %s at [%d, %d) outside the text (%d bytes)", u.Feature.Name, u.Start, u.End, len(text))
			}
			if level.Admits(u.Feature.Level) {
				t.Fatalf("%s reported at %s, which admits it", u.Feature.Name, level)
			}
			if u.Message(level) == "" {
				t.Fatal("empty message")
			}
		}
		if i := TrailingComma(text); i >= 0 && text[i] != ',' {
			t.Fatalf("TrailingComma(%q) = %d, not a comma", text, i)
		}
		RegexpFeatures(text, true)
	})
}
