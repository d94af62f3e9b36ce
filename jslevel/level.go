package jslevel

import (
	"fmt"
	"strings"
)

// Level is a JavaScript language level. The zero value is Latest: what
// restls's own engine (goja) runs, with nothing reported.
type Level uint8

// The levels, in order; Latest admits everything.
const (
	Latest Level = iota
	ES5_1
	ES2015
	ES2016
	ES2017
	ES2018
	ES2019
	ES2020
	ES2021
	ES2022
	ES2023
	ES2024
	ES2025
)

var names = [...]string{Latest: "latest", ES5_1: "es5.1", ES2015: "es2015", ES2016: "es2016", ES2017: "es2017",
	ES2018: "es2018", ES2019: "es2019", ES2020: "es2020", ES2021: "es2021", ES2022: "es2022", ES2023: "es2023",
	ES2024: "es2024", ES2025: "es2025"}

// String is the level as restls.yaml writes it.
func (l Level) String() string {
	if int(l) < len(names) {
		return names[l]
	}
	return fmt.Sprintf("level(%d)", l)
}

// Admits reports whether a platform at level l accepts what level f
// introduced.
func (l Level) Admits(f Level) bool { return l == Latest || f <= l }

// Names are the levels restls.yaml's engine accepts, oldest first,
// latest last.
func Names() []string {
	out := append([]string{}, names[ES5_1:]...)
	return append(out, names[Latest])
}

// aliases are names people write for a level, suggested back.
var aliases = map[string]Level{"es5": ES5_1, "es6": ES2015, "es7": ES2016, "es8": ES2017, "es9": ES2018,
	"es10": ES2019, "es11": ES2020, "es12": ES2021, "es13": ES2022, "es14": ES2023, "es15": ES2024, "es16": ES2025,
	"esnext": Latest}

// Parse reads a level as restls.yaml writes it. Its error lists the
// levels allowed and, for a near spelling (ES2015, es6, 2017), the one
// meant.
func Parse(s string) (Level, error) {
	for l, n := range names {
		if s == n {
			return Level(l), nil
		}
	}
	allowed := strings.Join(Names(), ", ")
	k := strings.ToLower(strings.TrimSpace(s))
	if !strings.HasPrefix(k, "es") && len(k) == 4 {
		k = "es" + k
	}
	for _, n := range names {
		if k == n {
			return 0, fmt.Errorf("unknown engine level %q: did you mean %q? The levels are %s", s, n, allowed)
		}
	}
	if l, ok := aliases[k]; ok {
		return 0, fmt.Errorf("unknown engine level %q: did you mean %q? The levels are %s", s, l, allowed)
	}
	return 0, fmt.Errorf("unknown engine level %q: the levels are %s", s, allowed)
}
