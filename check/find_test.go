package check

import "sort"

// Find returns the scripts under paths as walkScripts finds them, sorted
// and without duplicates, and the warnings of the walk: what restls check
// checks, for the tests of the walk.
func Find(paths, include, exclude []string) ([]string, []Finding, error) {
	var out []string
	warnings, err := walkScripts(paths, include, exclude, func(p string) { out = append(out, p) }, nil, nil)
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(out)
	return out, warnings, nil
}
