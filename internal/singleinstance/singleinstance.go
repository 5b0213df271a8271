// Package singleinstance keeps one window per chat database: a second launch on the same
// database raises the window that already has it and exits, the way a desktop app behaves when
// its icon is clicked twice. Launches on different databases run side by side.
//
// The instances meet on the D-Bus session bus, as GTK applications (and Wails' own
// single-instance lock) do: the first one owns a bus name derived from the database's path and
// answers a Raise call; a later one finds the name taken, calls Raise and steps aside. Without a
// session bus (a bare X server, a container) there is no meeting point: every launch is
// primary, and the database's own lock still refuses a second writer with a clear sentence.
package singleinstance

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/godbus/dbus/v5"
)

const (
	objectPath = dbus.ObjectPath("/io/github/prototyper/Instance")
	iface      = "io.github.prototyper.Instance"
	// callTimeout bounds the Raise call: a first instance that is hung must not hang the
	// second launch too.
	callTimeout = 3 * time.Second
)

// ErrAlreadyRunning is returned by [Claim] when another instance holds the database and was
// asked to raise its window.
var ErrAlreadyRunning = errors.New("another instance holds this database")

// Instance is the claim of the first launch on a database. Release it when the app quits.
type Instance struct {
	conn *dbus.Conn // nil without a session bus
}

// raiser is the object the first instance exports on the bus.
type raiser struct{ fn func() }

// Raise brings the first instance's window to the front.
func (r raiser) Raise() *dbus.Error {
	if r.fn != nil {
		r.fn()
	}
	return nil
}

// BusName is the bus name of the instance that holds the database at path.
func BusName(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	// The file may not exist yet (a first launch creates it): resolve its folder.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	} else if dir, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		path = filepath.Join(dir, filepath.Base(path))
	}
	sum := sha256.Sum256([]byte(path))
	return iface + ".db_" + hex.EncodeToString(sum[:8])
}

// Claim makes this process the instance of the database at dbPath; onRaise runs (on a bus
// goroutine) whenever a later launch asks for the window. When another process already holds
// the database, Claim asks it to raise its window and returns [ErrAlreadyRunning]. Any other
// failure of the bus leaves this launch primary, with no claim.
func Claim(dbPath string, onRaise func()) (*Instance, error) {
	conn, err := sessionBus()
	if err != nil {
		return &Instance{}, nil
	}
	name := BusName(dbPath)
	reply, err := conn.RequestName(name, dbus.NameFlagDoNotQueue)
	if err != nil {
		conn.Close()
		return &Instance{}, nil
	}
	if reply == dbus.RequestNameReplyPrimaryOwner || reply == dbus.RequestNameReplyAlreadyOwner {
		if err := conn.Export(raiser{onRaise}, objectPath, iface); err != nil {
			conn.Close()
			return &Instance{}, nil
		}
		return &Instance{conn: conn}, nil
	}
	defer conn.Close()
	call := conn.Object(name, objectPath).Go(iface+".Raise", 0, nil)
	select {
	case <-call.Done:
		if call.Err != nil {
			return &Instance{}, nil // the holder does not answer: let the database lock speak
		}
		return nil, ErrAlreadyRunning
	case <-time.After(callTimeout):
		return &Instance{}, nil
	}
}

// Release gives the database's bus name back.
func (i *Instance) Release() {
	if i == nil || i.conn == nil {
		return
	}
	_ = i.conn.Close()
	i.conn = nil
}

// sessionBus connects to the user's session bus without starting one: a launch must never
// leave a bus daemon behind.
func sessionBus() (*dbus.Conn, error) {
	addr := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	if addr == "" || addr == "autolaunch:" {
		runtime := os.Getenv("XDG_RUNTIME_DIR")
		if runtime == "" {
			return nil, errors.New("no session bus")
		}
		sock := filepath.Join(runtime, "bus")
		if fi, err := os.Stat(sock); err != nil || fi.Mode()&os.ModeSocket == 0 {
			return nil, errors.New("no session bus")
		}
		addr = "unix:path=" + sock
	}
	return dbus.Connect(addr)
}
