package tests

import (
	"fmt"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"

	"prototyper/internal/testenv"
)

// The window's accessibility tree, as a screen reader reads it: WebKitGTK exposes the page on
// AT-SPI, the desktop's accessibility bus, which the session bus of the test's display starts
// (at-spi-bus-launcher). A test finds a control there by its role and accessible name, the
// way a user finds it by what it says, and activates it through its action ("press"): no
// position, no count of Tab presses, so it holds under any layout, font and text size, and
// whatever other controls a feature adds around it.

// a11yNode is an accessible object: the bus name of the process that exposes it and its path.
type a11yNode struct {
	Dest string
	Path dbus.ObjectPath
}

// a11yControl is a control found in the tree.
type a11yControl struct {
	node a11yNode
	role a11yRole
	name string
}

const (
	atspiAccessible = "org.a11y.atspi.Accessible"
	atspiAction     = "org.a11y.atspi.Action"
	atspiComponent  = "org.a11y.atspi.Component"
	atspiText       = "org.a11y.atspi.Text"
)

// a11yBus connects to the accessibility bus of the app's display, once.
func (a *desktopApp) a11yBus() *dbus.Conn {
	a.tb.Helper()
	if a.a11y != nil {
		return a.a11y
	}
	bus, ok := sessionBuses.Load(a.display)
	if !ok {
		a.tb.Fatal("the display has no session bus, so no accessibility bus")
	}
	session, err := dbus.Connect(bus.(string))
	if err != nil {
		a.tb.Fatalf("connect to the session bus: %v", err)
	}
	defer session.Close()
	var addr string
	if err := session.Object("org.a11y.Bus", "/org/a11y/bus").Call("org.a11y.Bus.GetAddress", 0).Store(&addr); err != nil {
		testenv.Missing(a.tb, "the accessibility bus ("+err.Error()+")", "install Debian's at-spi2-core (`make test` does)")
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		a.tb.Fatalf("connect to the accessibility bus %s: %v", addr, err)
	}
	a.tb.Cleanup(func() { conn.Close() })
	a.a11y = conn
	return conn
}

// children are the accessible children of n. The web view is a socket whose one child, the
// page, lives in WebKit's web process: GetChildren leaves it out, GetChildAtIndex gives it.
func (a *desktopApp) children(n a11yNode) []a11yNode {
	obj := a.a11yBus().Object(n.Dest, n.Path)
	var out []a11yNode
	if err := obj.Call(atspiAccessible+".GetChildren", 0).Store(&out); err != nil {
		return nil // an object that went away while the page changed
	}
	if len(out) > 0 {
		return out
	}
	v, err := obj.GetProperty(atspiAccessible + ".ChildCount")
	if err != nil {
		return nil
	}
	count, _ := v.Value().(int32)
	for i := range count {
		var c a11yNode
		if err := obj.Call(atspiAccessible+".GetChildAtIndex", 0, i).Store(&c); err == nil && c.Path != "/org/a11y/atspi/null" {
			out = append(out, c)
		}
	}
	return out
}

// name is n's accessible name.
func (a *desktopApp) name(n a11yNode) string {
	v, err := a.a11yBus().Object(n.Dest, n.Path).GetProperty(atspiAccessible + ".Name")
	if err != nil {
		return ""
	}
	s, _ := v.Value().(string)
	return s
}

// a11yRole is an AT-SPI role (AtspiRole): WebKit's objects answer GetRole, not GetRoleName.
type a11yRole uint32

// The roles the tests look for: ATSPI_ROLE_COMBO_BOX, an HTML select's;
// ATSPI_ROLE_PUSH_BUTTON, a button's; ATSPI_ROLE_ENTRY, a text field's (the composer's).
const (
	roleComboBox   a11yRole = 11
	rolePushButton a11yRole = 43
	roleEntry      a11yRole = 79
)

func (r a11yRole) String() string {
	switch r {
	case rolePushButton:
		return "button"
	case roleEntry:
		return "text field"
	}
	return fmt.Sprintf("role %d", uint32(r))
}

// role is n's role.
func (a *desktopApp) role(n a11yNode) a11yRole {
	var r uint32
	_ = a.a11yBus().Object(n.Dest, n.Path).Call(atspiAccessible+".GetRole", 0).Store(&r)
	return a11yRole(r)
}

// appRoot is the accessible application of this process: the one on the accessibility bus
// whose connection is this app's process.
func (a *desktopApp) appRoot() (a11yNode, bool) {
	bus := a.a11yBus()
	pid := uint32(a.cmd.Process.Pid)
	for _, app := range a.children(a11yNode{Dest: "org.a11y.atspi.Registry", Path: "/org/a11y/atspi/accessible/root"}) {
		var p uint32
		if err := bus.BusObject().Call("org.freedesktop.DBus.GetConnectionUnixProcessID", 0, app.Dest).Store(&p); err == nil && p == pid {
			return app, true
		}
	}
	return a11yNode{}, false
}

// each calls fn for every object of the window's accessibility tree, in the page's order; it
// reports false when the app is not on the accessibility bus.
func (a *desktopApp) each(fn func(n a11yNode)) bool {
	root, ok := a.appRoot()
	if !ok {
		return false
	}
	seen := map[a11yNode]bool{}
	var walk func(n a11yNode, depth int)
	walk = func(n a11yNode, depth int) {
		if seen[n] || depth > 80 {
			return
		}
		seen[n] = true
		fn(n)
		for _, c := range a.children(n) {
			walk(c, depth+1)
		}
	}
	walk(root, 0)
	return true
}

// controls lists, in the page's order, the window's controls of role whose accessible name is
// name.
func (a *desktopApp) controls(role a11yRole, name string) []a11yControl {
	var found []a11yControl
	a.each(func(n a11yNode) {
		if a.name(n) == name && a.role(n) == role {
			found = append(found, a11yControl{node: n, role: role, name: name})
		}
	})
	return found
}

// waitControl waits for exactly one control of role named name and returns it.
func (a *desktopApp) waitControl(role a11yRole, name string, timeout time.Duration) a11yControl {
	a.tb.Helper()
	var got []a11yControl
	for deadline := time.Now().Add(timeout); ; time.Sleep(200 * time.Millisecond) {
		if got = a.controls(role, name); len(got) == 1 {
			return got[0]
		}
		if time.Now().After(deadline) {
			break
		}
	}
	a.tb.Fatalf("the window's accessibility tree has %d controls of role %v named %q after %s, want one; its buttons: %s",
		len(got), role, name, timeout, strings.Join(a.names(rolePushButton), ", "))
	return a11yControl{}
}

// waitNoControl waits until the window has no control of role named name (its dialog closed).
func (a *desktopApp) waitNoControl(role a11yRole, name string, timeout time.Duration) {
	a.tb.Helper()
	for deadline := time.Now().Add(timeout); len(a.controls(role, name)) != 0; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			a.tb.Fatalf("the window still has a %v named %q after %s", role, name, timeout)
		}
	}
}

// names lists the accessible names of the window's controls of role, for a failure message.
func (a *desktopApp) names(role a11yRole) []string {
	var out []string
	if !a.each(func(n a11yNode) {
		if a.role(n) == role {
			out = append(out, fmt.Sprintf("%q", a.name(n)))
		}
	}) {
		return []string{"(the app is not on the accessibility bus)"}
	}
	return out
}

// text is the text n holds, as a screen reader reads it ("" when it holds none).
func (a *desktopApp) text(n a11yNode) string {
	var s string
	if err := a.a11yBus().Object(n.Dest, n.Path).Call(atspiText+".GetText", 0, int32(0), int32(-1)).Store(&s); err != nil {
		return ""
	}
	return s
}

// texts lists, in the page's order, the texts of the window that match.
func (a *desktopApp) texts(match func(string) bool) []string {
	var out []string
	a.each(func(n a11yNode) {
		if s := a.text(n); s != "" && match(s) {
			out = append(out, s)
		}
	})
	return out
}

// waitTexts waits up to timeout for texts of the window that match, and returns them (none
// when the time is up).
func (a *desktopApp) waitTexts(match func(string) bool, timeout time.Duration) []string {
	var said []string
	for deadline := time.Now().Add(timeout); len(said) == 0 && time.Now().Before(deadline); {
		said = a.texts(match)
	}
	return said
}

// says waits a while for a text of the window that holds part, and reports whether one came.
func (a *desktopApp) says(part string) bool {
	return len(a.waitTexts(func(s string) bool { return strings.Contains(s, part) }, 20*time.Second)) > 0
}

// waitNoText waits until no text of the window holds part, up to timeout, and reports whether
// that came; the caller says what the text still shown means.
func (a *desktopApp) waitNoText(part string, timeout time.Duration) bool {
	for deadline := time.Now().Add(timeout); len(a.textsWith(part)) != 0; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// textsWith lists, now, the texts of the window that hold part.
func (a *desktopApp) textsWith(part string) []string {
	return a.texts(func(s string) bool { return strings.Contains(s, part) })
}

// press finds the one button named name and activates it, as a screen reader's user does
// (its first action: WebKit's "press", a click).
func (a *desktopApp) press(name string) {
	a.tb.Helper()
	a.activate(a.waitControl(rolePushButton, name, 20*time.Second))
}

// activate does the first action of c, a control found in the tree (a button's: "press").
func (a *desktopApp) activate(c a11yControl) {
	a.tb.Helper()
	var ok bool
	if err := a.a11yBus().Object(c.node.Dest, c.node.Path).Call(atspiAction+".DoAction", 0, int32(0)).Store(&ok); err != nil || !ok {
		a.tb.Fatalf("press %q: %v (done: %v)", c.name, err, ok)
	}
}

// focus gives the keyboard focus to the one button named name.
func (a *desktopApp) focus(name string) {
	a.tb.Helper()
	c := a.waitControl(rolePushButton, name, 20*time.Second)
	var ok bool
	if err := a.a11yBus().Object(c.node.Dest, c.node.Path).Call(atspiComponent+".GrabFocus", 0).Store(&ok); err != nil || !ok {
		a.tb.Fatalf("focus %q: %v (done: %v)", name, err, ok)
	}
}

// The bits of a control's state (AtspiStateType): one a user can act on, one that has the
// keyboard focus.
const (
	stateEnabled = 8
	stateFocused = 12
)

// enabled reports whether the control can be acted on (a disabled button is not).
func (a *desktopApp) enabled(c a11yControl) bool {
	a.tb.Helper()
	return a.hasState(c.node, c.name, stateEnabled)
}

// hasState reports whether the state of node (named name, for a failure) holds bit.
func (a *desktopApp) hasState(node a11yNode, name string, bit uint) bool {
	a.tb.Helper()
	var states []uint32
	if err := a.a11yBus().Object(node.Dest, node.Path).Call(atspiAccessible+".GetState", 0).Store(&states); err != nil || len(states) == 0 {
		a.tb.Fatalf("the state of %q: %v", name, err)
	}
	return states[0]&(1<<bit) != 0
}

// waitState waits until the state of node (named name) holds bit, or no longer does (want
// false), up to timeout, and reports whether that came.
func (a *desktopApp) waitState(node a11yNode, name string, bit uint, want bool, timeout time.Duration) bool {
	a.tb.Helper()
	for deadline := time.Now().Add(timeout); a.hasState(node, name, bit) != want; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// waitFocus waits until a control of role whose accessible name begins with prefix has the
// keyboard focus, and returns its name.
func (a *desktopApp) waitFocus(role a11yRole, prefix string, timeout time.Duration) string {
	a.tb.Helper()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var focused string
		a.each(func(n a11yNode) {
			if name := a.name(n); focused == "" && strings.HasPrefix(name, prefix) && a.role(n) == role && a.hasState(n, name, stateFocused) {
				focused = name
			}
		})
		if focused != "" {
			return focused
		}
	}
	a.tb.Fatalf("no control of role %v named %q… has the keyboard focus after %s; the buttons: %s",
		role, prefix, timeout, strings.Join(a.names(rolePushButton), ", "))
	return ""
}
