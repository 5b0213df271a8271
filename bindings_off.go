//go:build !bindings

package main

import "embed"

// generatingBindings is true in the binary that Wails builds to write the frontend's bindings:
// it must not touch a running instance.
const generatingBindings = false

// assets is the window's page, the frontend's production bundle.
//
//go:embed all:frontend/dist
var assets embed.FS

// bound is what the window binds: its calls of the Go side.
func bound(app *App) []any { return []any{app} }
