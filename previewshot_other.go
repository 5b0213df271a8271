//go:build !linux

package main

import "fmt"

// snapshot is the web view's visible area (taken on Linux only, from WebKitGTK).
type snapshot struct {
	pix                   []byte
	width, height, stride int
	opaque                bool
}

// takeSnapshot: the web view's snapshot is read from WebKitGTK, on Linux only.
func takeSnapshot() (snapshot, error) {
	return snapshot{}, fmt.Errorf("%w (only on Linux)", errNoShot)
}
