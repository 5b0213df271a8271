//go:build bindings

package main

// generatingBindings is true in the binary that Wails builds to write the frontend's bindings:
// it must not touch a running instance.
const generatingBindings = true
