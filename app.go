package main

import (
	"context"

	"prototyper/internal/cli"
)

// App is the thin facade bound to the frontend: every exported method is callable from the
// window. It holds no logic of its own; it hands commands to the agent loop and the store, and
// acknowledgements to the event bridge.
type App struct {
	ctx     context.Context
	opts    cli.DesktopOptions
	exitErr error // set when startup fails; main reports it after the window closes
}

// NewApp returns the facade for the desktop options. It opens nothing.
func NewApp(opts cli.DesktopOptions) *App {
	return &App{opts: opts}
}

func (a *App) startup(ctx context.Context) {
	a.ctx = ctx
}

func (a *App) beforeClose(ctx context.Context) (prevent bool) {
	return false
}

func (a *App) shutdown(ctx context.Context) {}
