package config

// NewSnapshot builds a snapshot from registries made elsewhere with
// NewRegistry: the hints map of a remote restls backend (registryUrl), or
// tests. A kind without a registry gets an empty one that is not Loaded, so
// For never returns nil for a known kind.
func NewSnapshot(src Sources, regs ...*Registry) *Snapshot {
	s := &Snapshot{Sources: src, registries: make(map[Kind]*Registry, len(Kinds))}
	for _, r := range regs {
		if r != nil {
			s.registries[r.Kind] = r
		}
	}
	for _, k := range Kinds {
		if s.registries[k] == nil {
			s.registries[k] = FailedRegistry(k)
		}
	}
	return s
}

// FailedSnapshot is a snapshot whose every kind has a FailedRegistry with
// diags: no serviceId hints anywhere, and the reason in the status.
func FailedSnapshot(src Sources, diags ...Diagnostic) *Snapshot {
	regs := make([]*Registry, 0, len(Kinds))
	for _, k := range Kinds {
		regs = append(regs, FailedRegistry(k, diags...))
	}
	return NewSnapshot(src, regs...)
}
