//go:build !linux

package main

import "errors"

// guardBindings: the preview's frame is kept from the bindings on Linux only, where the
// guard knows WebKitGTK's message handlers.
func guardBindings() error {
	return errors.New("the preview is only available on Linux")
}
