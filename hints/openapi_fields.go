package hints

import "github.com/restls/restls/openapi"

// maxFieldItems caps the property items of one answer (`r.body.`, the
// keys of a payload): a schema of 20,000 properties made a 5.6 MB answer
// (issue 23). GitHub's largest schemas have about 100, so they are
// always offered whole. See docs/decisions.md ("OpenAPI descriptions
// (issue 23)").
const maxFieldItems = 200

// pickProps returns the indexes in props of the properties to offer
// when typed is typed, and capped true; or capped false when there are
// few enough to offer all (the editor filters them). Capped, it picks
// the names that start with typed, then those that contain it
// (ASCII case-insensitive), in their order, at most maxFieldItems, and
// the answer must be marked Incomplete so that the editor asks again as
// the user types: typing narrows the list to the property wanted.
func pickProps(props []openapi.Prop, typed string) (pick []int, capped bool) {
	if len(props) <= maxFieldItems {
		return nil, false
	}
	pick = make([]int, 0, maxFieldItems)
	for i, p := range props {
		if hasPrefixFold(p.Name, typed) {
			if len(pick) == maxFieldItems {
				return pick, true
			}
			pick = append(pick, i)
		}
	}
	if typed == "" {
		return pick, true
	}
	for i, p := range props {
		if !hasPrefixFold(p.Name, typed) && containsFold(p.Name, typed) {
			if len(pick) == maxFieldItems {
				return pick, true
			}
			pick = append(pick, i)
		}
	}
	return pick, true
}
