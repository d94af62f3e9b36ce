package restclient

import (
	"fmt"
	"time"
)

// BudgetShare is the share of the read timeout in force at which a call's
// answer is said to be close to it (issue 28's timeout budget hint): the
// preview shows an EventBudget event, the editor an information
// diagnostic.
const BudgetShare = 0.8

// ReadWaitMs is how long the call waited on what the read timeout bounds:
// from the connection being ready to the first byte of the answer when
// the call was traced (Timing), else (or for an answer from a fixture,
// whose delay the read timeout bounds) the whole call.
func (c *Call) ReadWaitMs() float64 {
	if t := c.Timing; t != nil && t.TTFBMs > 0 {
		return t.TTFBMs - max(t.DNSMs, t.ConnectMs, t.TLSMs)
	}
	return c.DurationMs
}

// budgetEvent adds EventBudget to a call answered after at least
// BudgetShare of its read timeout. A call that timed out says so in its
// error instead.
func budgetEvent(c *Call) {
	if c.readTimeout <= 0 || c.Status == nil || c.ErrorCode == CodeReadTimeout {
		return
	}
	limit := float64(c.readTimeout) / float64(time.Millisecond)
	wait := c.ReadWaitMs()
	if wait < BudgetShare*limit {
		return
	}
	c.event(EventBudget, fmt.Sprintf("the answer took %.0f ms, %.0f%% of the %.0f ms read timeout in force: a slower answer would fail with %s; raise the call's readTimeout (TIMEOUTS) or the service's default, or make the service answer sooner",
		wait, 100*wait/limit, limit, CodeReadTimeout))
}
