package config

// The one timeout rule (docs/api.md#timeouts): the runtime's calls
// (runtime/restclient) wait by it, and the editor's static worst case
// (hints) adds up by it.

// InForce are the timeouts scripts of r's kind run under: the registry's,
// pair by pair, else the built-in ones (a registry built without
// timeouts, or a nil one).
func (r *Registry) InForce() Timeouts {
	t := DefaultTimeouts
	if r == nil {
		return t
	}
	if r.Timeouts.Connection.Maximum > 0 {
		t.Connection = r.Timeouts.Connection
	}
	if r.Timeouts.Read.Maximum > 0 {
		t.Read = r.Timeouts.Read
	}
	return t
}

// Effective is the timeout in milliseconds a call asking for ms waits at
// most: the default when it asks for none (0), the maximum when it asks
// for more (clamped then says so). A negative ms is the caller's to
// refuse; it is treated as none here.
func (p TimeoutPair) Effective(ms int) (v int, clamped bool) {
	switch {
	case ms <= 0:
		return p.Default, false
	case p.Maximum > 0 && ms > p.Maximum:
		return p.Maximum, true
	}
	return ms, false
}
