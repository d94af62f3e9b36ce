package check

import (
	"fmt"

	"github.com/restls/restls/config"
)

// Codes of restls check --since (docs/diagnostics.md, "Change
// diagnostics"): a call whose service changes between REF's
// configuration and the working tree's.
const (
	CodeSinceServiceRemoved  = "since-service-removed"
	CodeSinceServiceUnusable = "since-service-unusable"
	CodeSinceURLChanged      = "since-url-changed"
	CodeSinceAuthChanged     = "since-auth-changed"
)

// sinceDiff is what --since says about the calls of one serviceId.
type sinceDiff struct {
	code, message string
}

// sinceDiffs are the differences per kind and serviceId; nil when
// --since was not asked.
type sinceDiffs map[config.Kind]map[string][]sinceDiff

// any reports whether a script of kind may get a finding.
func (s sinceDiffs) any(kind config.Kind) bool { return len(s[kind]) > 0 }

// diffSince compares the configuration of since with the working tree's
// (now), kind by kind, with config.DiffRegistries (restls services
// --diff's comparison), keeping what changes for a call that worked at
// the reference: the id gone or unusable, the url's host or path, the
// authorization kind.
func diffSince(since *Since, now *config.Snapshot) sinceDiffs {
	out := sinceDiffs{}
	for _, k := range config.Kinds {
		for _, d := range config.DiffRegistries(since.Config.For(k), now.For(k)) {
			if d.ServiceID == "" || !d.AUsable {
				continue // timeouts; or the call did not work at the reference either
			}
			var x sinceDiff
			switch {
			case d.What == config.DiffMissing && !d.BUsable:
				x = sinceDiff{CodeSinceServiceRemoved, fmt.Sprintf("serviceId %q is no longer configured for %s scripts (it was at %s, url %s): this call fails once the change is deployed; restore the entry or change the call",
					d.ServiceID, k, since.Ref, d.A)}
			case d.What == config.DiffUnusable && !d.BUsable:
				x = sinceDiff{CodeSinceServiceUnusable, fmt.Sprintf("serviceId %q becomes unusable for %s scripts (usable at %s): %s; fix the entry",
					d.ServiceID, k, since.Ref, d.B)}
			case d.What == config.DiffURL:
				x = sinceDiff{CodeSinceURLChanged, fmt.Sprintf("serviceId %q now resolves to %s (was %s at %s): this call reaches another host or path; check that the paths it sends still hold",
					d.ServiceID, d.B, d.A, since.Ref)}
			case d.What == config.DiffAuth:
				x = sinceDiff{CodeSinceAuthChanged, fmt.Sprintf("serviceId %q: authorization changes from %s (at %s) to %s for %s scripts; check the headers this call sends",
					d.ServiceID, d.A, since.Ref, d.B, k)}
			default:
				continue
			}
			if out[k] == nil {
				out[k] = map[string][]sinceDiff{}
			}
			out[k][d.ServiceID] = append(out[k][d.ServiceID], x)
		}
	}
	return out
}
