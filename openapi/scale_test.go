package openapi

import (
	"fmt"
	"strings"
	"testing"
)

// allOfDoc is a description whose n paths each take a body that is the
// allOf of two components of props properties each (issue 23, finding
// 11: 20,000 properties on 10 paths took 24 s of CPU).
func allOfDoc(paths, props int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"allOf","version":"1"},"paths":{`)
	for i := range paths {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"/p%d":{"post":{"requestBody":{"content":{"application/json":{"schema":{"allOf":[{"$ref":"#/components/schemas/A"},{"$ref":"#/components/schemas/B"}]}}}},"responses":{"200":{"description":"ok"}}}}`, i)
	}
	b.WriteString(`},"components":{"schemas":{`)
	for c, name := range []string{"A", "B"} {
		if c > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%s":{"type":"object","required":["%s1"],"properties":{`, name, strings.ToLower(name))
		for i := range props {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"%s%d":{"type":"string"}`, strings.ToLower(name), i)
		}
		b.WriteString(`}}`)
	}
	b.WriteString(`}}}`)
	return []byte(b.String())
}

// pathsDoc is a description of n paths side by side under the root
// (finding 11: 200,000 paths were not loaded after 90 s).
func pathsDoc(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"paths","version":"1"},"paths":{`)
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `"/p%d/{id}":{"get":{"responses":{"200":{"description":"ok"}}}}`, i)
	}
	b.WriteString(`}}`)
	return []byte(b.String())
}

// BenchmarkBuildAllOf and BenchmarkBuildPaths load descriptions of two
// sizes each, four times apart: the time per op grows about fourfold
// (linear), not sixteenfold as it did with the lists searched.
func BenchmarkBuildAllOf(b *testing.B) {
	for _, props := range []int{5_000, 20_000} {
		data := allOfDoc(10, props)
		b.Run(fmt.Sprintf("props=%d", props), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Build("allof.json", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkBuildPaths(b *testing.B) {
	for _, n := range []int{20_000, 80_000} {
		data := pathsDoc(n)
		b.Run(fmt.Sprintf("paths=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Build("paths.json", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
