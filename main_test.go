package main

import (
	"testing"

	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

// Setting any Linux option makes Wails take the GPU policy from it, whose zero value is Always;
// the window keeps Never, Wails' own choice, or it paints slowly wherever there is no GPU.
func TestTheWindowKeepsWailsDefaultGPUPolicyBesideItsIcon(t *testing.T) {
	o := linuxOptions()
	if o.WebviewGpuPolicy != linux.WebviewGpuPolicyNever {
		t.Errorf("WebviewGpuPolicy = %v, want WebviewGpuPolicyNever", o.WebviewGpuPolicy)
	}
	if len(o.Icon) == 0 || o.ProgramName != "prototyper" {
		t.Errorf("icon of %d bytes, program name %q; want the app's icon and %q", len(o.Icon), o.ProgramName, "prototyper")
	}
}
