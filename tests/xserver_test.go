package tests

import (
	"math/rand/v2"
	"net"
	"testing"
	"time"

	"github.com/jezek/xgb"
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
	const rounds = 300
	dropped := 0
	for range rounds {
		// the readiness check's way, just after the last round's client left
		first, err := xClient("/tmp/.X11-unix/X" + display[1:])
		if err != nil {
			dropped++
			t.Logf("dropped: %v", err)
			continue
		}
		left := make(chan struct{})
		go func() {
			time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
			first.Close()
			close(left)
		}()
		// as GTK connects: through the abstract socket
		next, err := xClient("@/tmp/.X11-unix/X" + display[1:])
		<-left
		if err != nil {
			dropped++
			t.Logf("dropped: %v", err)
			continue
		}
		next.Close()
	}
	if dropped > 0 {
		t.Errorf("%d of %d rounds had a client dropped that connected as the one before it left", dropped, rounds)
	}
}

// xClient connects to the X server at the socket addr ("@" first: the abstract one) and reads
// its greeting, within two seconds.
func xClient(addr string) (*xgb.Conn, error) {
	nc, err := net.DialTimeout("unix", addr, 2*time.Second)
	if err != nil {
		return nil, err
	}
	_ = nc.SetDeadline(time.Now().Add(2 * time.Second))
	conn, err := xgb.NewConnNet(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return conn, nil
}
