//go:build bindings

package main

import "embed"

// generatingBindings is true in the binary that Wails builds to write the frontend's bindings:
// it must not touch a running instance.
const generatingBindings = true

// assets is empty in the bindings generator, which shows no page: the generator then depends
// on the Go sources alone, and a new frontend bundle does not make the build compile and run
// it again (scripts/build.sh).
var assets embed.FS
