package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// onHangup calls reload on every SIGHUP until ctx ends: an operator's
// "read the configuration again" (kill -HUP, systemctl reload). Signal
// handling is the process's, so it lives here; what a reload does is the
// served package's (web.Server.ReloadBySignal).
func onHangup(ctx context.Context, reload func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	go func() {
		defer signal.Stop(ch)
		for {
			select {
			case <-ctx.Done():
				return
			case <-ch:
				reload()
			}
		}
	}()
}
