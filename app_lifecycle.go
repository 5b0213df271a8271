// App's life with the window: the session opened at startup, the runs stopped before the
// window closes, the session closed at shutdown, the window raised for a second launch.

package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"prototyper/events/wailssink"
	"prototyper/internal/desktop"
)

// startup opens the session, its events going to the window (a second instance quits).
func (a *App) startup(ctx context.Context) {
	desk, err := desktop.OpenDesktop(a.opts, wailssink.New(ctx))
	// Wails runs startup beside the page's first calls: the fields are published under a.mu.
	a.mu.Lock()
	a.ctx, a.desk, a.exitErr = ctx, desk, err
	a.mu.Unlock()
	if err != nil {
		runtime.Quit(ctx)
	}
}

// beforeClose stops the runs, within a second, before the window goes: each keeps what it has.
func (a *App) beforeClose(ctx context.Context) (prevent bool) {
	if desk, err := a.desktop(); err == nil {
		stopCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		report(desk.Stop(stopCtx))
	}
	return false
}

func (a *App) shutdown(ctx context.Context) {
	if desk, err := a.desktop(); err == nil {
		report(desk.Close())
	}
}

// report prints a failure of closing on stderr: the window is gone.
func report(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "prototyper:", err)
	}
}

// raiseWindow brings the window to the front: a second launch on the same database asked.
func (a *App) raiseWindow() {
	if ctx := a.context(); ctx != nil {
		runtime.WindowUnminimise(ctx) // gtk_window_present: shows, raises and focuses
		runtime.WindowShow(ctx)
	}
}

// startupErr is why startup failed, if it did; context is the window's, once started.
func (a *App) startupErr() error { a.mu.Lock(); defer a.mu.Unlock(); return a.exitErr }

func (a *App) context() context.Context { a.mu.Lock(); defer a.mu.Unlock(); return a.ctx }
