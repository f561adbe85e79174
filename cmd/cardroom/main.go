// Command cardroom runs the poker room's back end: every service and the
// REST gateway in one process (`cardroom all`), or one part of it for
// Kubernetes, plus the operator's tools (token, migrate, phh, wallet audit).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "cardroom:", err)
		os.Exit(1)
	}
}
