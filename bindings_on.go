//go:build bindings

package main

import (
	"embed"

	"prototyper/store"
)

// generatingBindings is true in the binary that Wails builds to write the frontend's bindings:
// it must not touch a running instance.
const generatingBindings = true

// assets is empty in the bindings generator, which shows no page: the generator then depends
// on the Go sources alone, and a new frontend bundle does not make the build compile and run
// it again (scripts/build.sh).
var assets embed.FS

// bound is what the generator binds: the window's App, and bindingTypes for the types Wails'
// generator would not find by itself.
func bound(app *App) []any { return []any{app, &bindingTypes{}} }

// bindingTypes is bound in the generator only, never in the window, and the window calls none
// of its methods: they name types for models.ts. The generator follows the fields of the types
// the bound methods take and return, but not the fields of an embedded struct, so a type reached
// only that way would be typed any: store.SummaryOffer, reached through the store.RunNote that
// agentloop.ChatNote embeds.
type bindingTypes struct{}

// SummaryOffer names store.SummaryOffer (agentloop.ChatNote's offer).
func (*bindingTypes) SummaryOffer() store.SummaryOffer { return store.SummaryOffer{} }
