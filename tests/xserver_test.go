package tests

import (
	"math/rand/v2"
	"testing"
	"time"
)

// The X server a window test starts serves a client that connects while the one before it
// leaves: the app connects just after the readiness check has left, and a server that resets
// when its last client leaves drops a client that meets the reset (the app then ends with
// "failed to init GTK").
func TestTheWindowTestsXServerServesAClientThatConnectsAsTheLastOneLeaves(t *testing.T) {
	xvfb := debianTool(t, "Xvfb", "xvfb")
	display, err := tryXvfb(t, xvfb, "640x480x24")
	if err != nil {
		t.Fatalf("Xvfb: %v", err)
	}
	file, abstract := "/tmp/.X11-unix/X"+display[1:], "@/tmp/.X11-unix/X"+display[1:]
	// One round: a client connects the readiness check's way, just after the last round's
	// client left; as it leaves, the next connects the way GTK does, through the abstract socket.
	round := func() error {
		first, err := xClient(file)
		if err != nil {
			return err
		}
		left := make(chan struct{})
		go func() {
			time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
			first.Close()
			close(left)
		}()
		next, err := xClient(abstract)
		<-left
		if err != nil {
			return err
		}
		next.Close()
		return nil
	}
	const rounds = 300
	dropped := 0
	for range rounds {
		if err := round(); err != nil {
			dropped++
			t.Logf("dropped: %v", err)
		}
	}
	if dropped > 0 {
		t.Errorf("%d of %d rounds had a client dropped that connected as the one before it left", dropped, rounds)
	}
}
