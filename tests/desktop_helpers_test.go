package tests

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"io/fs"
	"log"
	"net"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"prototyper/internal/testenv"
	"prototyper/model/ollama"
)

// moduleRoot is the repository root (the folder holding go.mod).
func moduleRoot(tb testing.TB) string {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// artifactDir is the git-ignored folder where desktop tests keep screenshots and logs.
func artifactDir(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(moduleRoot(tb), "tests", "artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// desktopBinary is the production binary: PROTOTYPER_BIN, else build/bin/prototyper.
func desktopBinary(tb testing.TB) string {
	tb.Helper()
	bin := os.Getenv("PROTOTYPER_BIN")
	if bin == "" {
		bin = filepath.Join(moduleRoot(tb), "build", "bin", "prototyper")
	}
	if _, err := os.Stat(bin); err != nil {
		testenv.Missing(tb, "the production binary "+bin, "run `make build`")
	}
	return bin
}

// debianTool finds the program name that a test needs and `make test` installs, from Debian's
// package pkg.
func debianTool(tb testing.TB, name, pkg string) string {
	tb.Helper()
	return testenv.LookPath(tb, "", name, "install Debian's "+pkg+" (`make test` does)")
}

// pathWith is PATH with dir first: a program there is found before the system's.
func pathWith(dir string) string {
	return dir + string(os.PathListSeparator) + os.Getenv("PATH")
}

// writeFile writes content at path with mode (whatever the umask).
func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// wantContent checks that the file at path holds want.
func wantContent(t *testing.T, path, want string) {
	t.Helper()
	if got, err := os.ReadFile(path); err != nil || string(got) != want {
		t.Errorf("%s = %q, %v; want %q", filepath.Base(path), got, err, want)
	}
}

// wantFile checks a file's content and mode; mode 0 means it must not exist.
func wantFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	got, err := os.ReadFile(path)
	if mode == 0 {
		if err == nil {
			t.Errorf("%s exists (%q), want it gone", filepath.Base(path), got)
		}
		return
	}
	fi, _ := os.Stat(path)
	if err != nil || string(got) != content || fi.Mode().Perm() != mode {
		t.Errorf("%s = %q, %v; want %q with mode %v", filepath.Base(path), got, err, content, mode)
	}
}

// waitLoaded waits until the server at url holds model in memory, before anything was asked
// of it in the window: the window preloaded it.
func waitLoaded(t *testing.T, url, model string) {
	t.Helper()
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	client := ollama.New(u)
	deadline := time.Now().Add(60 * time.Second)
	for loaded, _ := client.IsLoaded(context.Background(), model); !loaded; loaded, _ = client.IsLoaded(context.Background(), model) {
		if time.Now().After(deadline) {
			t.Fatalf("%s is not loaded at %s 60 s after the server answered: the window did not preload it", model, url)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// layout is how the desktop tests lay the window out. The default is the app's own window on a
// 1280×800 screen; PROTOTYPER_TEST_LAYOUT=large (the second pass of `make test`) gives a
// smaller screen, a window resized the way a user would, and text half as large again, so that
// a test that found its target by position would miss it.
type layout struct {
	name    string
	screen  string   // Xvfb's screen
	windowW string   // the window is resized to this, when set
	windowH string   //
	env     []string // the app's environment
}

// The two layouts.
var (
	defaultLayout = layout{name: "default", screen: "1280x800x24"}
	largeLayout   = layout{name: "large", screen: "1024x768x24", windowW: "900", windowH: "660", env: []string{"GDK_DPI_SCALE=1.5"}}
)

// passLayout is the layout of this pass (PROTOTYPER_TEST_LAYOUT), the one its own tests run in.
func passLayout() layout {
	switch l := os.Getenv("PROTOTYPER_TEST_LAYOUT"); l {
	case "", "default":
		return defaultLayout
	case "large":
		return largeLayout
	default:
		panic("PROTOTYPER_TEST_LAYOUT: want default or large, got " + l)
	}
}

// takenInDefault are the tests the second layout's pass took from the default layout's list
// (skipOutsideThisPass): they run in the default layout.
var takenInDefault sync.Map

// desktopLayout is the layout the test tb runs in.
func desktopLayout(tb testing.TB) layout {
	top, _, _ := strings.Cut(tb.Name(), "/")
	if _, ok := takenInDefault.Load(top); ok {
		return defaultLayout
	}
	return passLayout()
}

// layoutTests are the window tests marked with layoutCanMatter.
var layoutTests sync.Map

// layoutCanMatter marks a window test whose outcome can depend on how the window is laid out
// (what the keyboard reaches and in which order, what is scrolled into view, what a pane or a
// narrow window cuts, what a screenshot shows): the second layout's pass runs these only. The
// others (a server's life, a process's, what is stored or refused) run in the default layout.
func layoutCanMatter(t *testing.T) { layoutTests.Store(t.Name(), true) }

// skipOutsideThisPass skips a window test another pass of `make test` runs, saying so. The
// second layout's pass runs the tests marked with layoutCanMatter; every test runs in the
// default layout once. With PROTOTYPER_TEST_SHARED=<folder>, the passes side by side share the
// default layout's list through that folder: each of its tests runs in the first pass that
// reaches it, the second layout's pass included (in the default layout) between its own.
func skipOutsideThisPass(tb testing.TB) {
	top, _, _ := strings.Cut(tb.Name(), "/")
	shared := os.Getenv("PROTOTYPER_TEST_SHARED")
	if l := passLayout(); l.name != "default" {
		if _, ok := layoutTests.Load(top); ok {
			return
		}
		if shared != "" && takeTest(tb, shared, top) {
			takenInDefault.Store(top, true)
			return
		}
		tb.Skipf("the %s layout runs only the window tests where layout can matter (layoutCanMatter); this one runs in the default layout, in another pass", l.name)
	}
	if shared != "" && !takeTest(tb, shared, top) {
		tb.Skipf("another pass of the window tests took this one (PROTOTYPER_TEST_SHARED) and runs it")
	}
}

// takenHere are the tests this pass took from the shared folder: a test may start several
// windows, and each asks again.
var takenHere sync.Map

// takeTest reports whether this pass runs the test named top: the first pass to reach it takes
// it by creating a file of its name in dir, which no other pass can then create. The passes
// go through the tests in the same order, so each takes the next test when its last one ends,
// and they end within one test of each other, whatever each test takes.
func takeTest(tb testing.TB, dir, top string) bool {
	if _, ok := takenHere.Load(top); ok {
		return true
	}
	f, err := os.OpenFile(filepath.Join(dir, top), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false
	}
	if err != nil {
		tb.Fatalf("PROTOTYPER_TEST_SHARED: the folder the passes share their tests through cannot take this one: %v", err)
	}
	f.Close()
	takenHere.Store(top, true)
	return true
}

// artifactName puts the pass in a screenshot's name — the layout other than the default, the
// pass's number (PROTOTYPER_TEST_PASS) — so that passes running side by side never write (or
// read back) each other's file: tests of different passes may use the same name.
func artifactName(tb testing.TB, name string) string {
	ext := filepath.Ext(name)
	base := strings.TrimSuffix(name, ext)
	if l := desktopLayout(tb); l.name != "default" {
		base += "-" + l.name
	}
	if pass := os.Getenv("PROTOTYPER_TEST_PASS"); pass != "" {
		base += "-pass" + pass
	}
	return base + ext
}

// sessionBuses maps a display to the session bus started with it: the app's instances meet on
// it (one window per database), as they do on a desktop.
var sessionBuses sync.Map

// startXvfb starts a private X server, with a session bus of its own, and returns its DISPLAY
// (":N"), for a test this pass runs (skipOutsideThisPass).
func startXvfb(tb testing.TB) string {
	tb.Helper()
	return startXvfbScreen(tb, desktopLayout(tb).screen)
}

// startXvfbScreen is startXvfb on a screen of the given size (Xvfb's WxHxDEPTH).
func startXvfbScreen(tb testing.TB, screen string) string {
	tb.Helper()
	skipOutsideThisPass(tb)
	xvfb := debianTool(tb, "Xvfb", "xvfb")
	debianTool(tb, "xdotool", "xdotool")
	// The test waits until a client connects, and a server that ends or takes none is started
	// again, on the next free number.
	var why string
	for range 3 {
		display, err := tryXvfb(tb, xvfb, screen)
		if err == nil {
			sessionBuses.Store(display, testenv.SessionBus(tb, "DISPLAY="+display))
			return display
		}
		why = err.Error()
	}
	tb.Fatalf("Xvfb: %s", why)
	return ""
}

// tryXvfb starts an X server and returns its display once a client can connect to it; the
// server stops when the test ends, or at once when it fails.
func tryXvfb(tb testing.TB, xvfb, screen string) (string, error) {
	r, w, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	// -noreset: by default an X server resets when its last client leaves, and a client that
	// connects during the reset is dropped. The first client is the check below; the app that
	// connects next could meet the reset and end with "failed to init GTK" (see
	// TestTheWindowTestsXServerServesAClientThatConnectsAsTheLastOneLeaves).
	cmd := exec.Command(xvfb, "-displayfd", "3", "-screen", "0", screen, "-nolisten", "tcp", "-noreset")
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start Xvfb: %v", err)
	}
	w.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case err := <-exited:
			exited <- err // for the next stop
			return
		case <-time.After(2 * time.Second): // a server that does not end on TERM
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		exited <- <-exited
	}
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		r.Close()
		line <- strings.TrimSpace(s)
	}()
	var n string
	select {
	case n = <-line:
	case <-time.After(20 * time.Second):
		stop()
		return "", errors.New("it did not start within 20s")
	}
	if _, err := strconv.Atoi(n); err != nil {
		stop()
		return "", fmt.Errorf("it did not report a display number (got %q)", n)
	}
	display := ":" + n
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		select {
		case err := <-exited:
			exited <- err
			return "", fmt.Errorf("it reported display %s and ended (%v)", display, err)
		default:
		}
		err := takesAClient(n)
		if err == nil {
			tb.Cleanup(stop)
			return display, nil
		}
		if time.Now().After(deadline) {
			stop()
			return "", fmt.Errorf("no client can connect to display %s: %v", display, err)
		}
	}
}

// takesAClient connects to the X server of display number n as a client does, through its
// socket, within two seconds: a server that takes the connection but never answers fails too.
func takesAClient(n string) error {
	conn, err := xClient("/tmp/.X11-unix/X" + n)
	if err != nil {
		return err
	}
	conn.Close()
	return nil
}

// xClient connects to the X server at the socket addr (one that begins with "@" is the
// abstract socket) and reads its greeting, within two seconds.
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

// xgb's logger complains of a missing ~/.Xauthority, which Xvfb does not need. It is a global
// of the package, set once here: passes probe displays from goroutines of their own.
func init() { xgb.Logger = log.New(io.Discard, "", 0) }

// desktopApp is the real Prototyper window running under Xvfb.
type desktopApp struct {
	tb      testing.TB
	cmd     *exec.Cmd
	display string
	window  string // X window id, decimal
	out     *testenv.Output
	done    chan error
	exited  bool
	exitErr error
	a11y    *dbus.Conn // the accessibility bus, once a test reads the tree (desktop_a11y_test.go)
	// inaccessible: started off the accessibility bus (withoutAccessibility), so that its tree
	// cannot be read
	inaccessible bool
}

// launchDesktop starts bin on display with args, a private HOME/XDG config, and extra env.
func launchDesktop(tb testing.TB, bin, display string, args []string, env ...string) *desktopApp {
	tb.Helper()
	home := tb.TempDir()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(),
		"DISPLAY="+display,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"GDK_BACKEND=x11",
		"XDG_RUNTIME_DIR="+filepath.Join(home, "run"),
	)
	if bus, ok := sessionBuses.Load(display); ok {
		// the window is on the accessibility bus this session bus starts, as on a desktop
		cmd.Env = append(cmd.Env, "DBUS_SESSION_BUS_ADDRESS="+bus.(string))
	} else {
		cmd.Env = append(cmd.Env, "DBUS_SESSION_BUS_ADDRESS=", "NO_AT_BRIDGE=1")
	}
	cmd.Env = append(cmd.Env, desktopLayout(tb).env...)
	cmd.Env = append(cmd.Env, env...)
	out := &testenv.Output{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start %s: %v", bin, err)
	}
	a := &desktopApp{tb: tb, cmd: cmd, display: display, out: out, done: make(chan error, 1)}
	go func() { a.done <- cmd.Wait() }()
	tb.Cleanup(func() {
		if !a.exited {
			_ = syscall.Kill(-a.cmd.Process.Pid, syscall.SIGKILL)
			<-a.done
		}
		if tb.Failed() {
			tb.Logf("app output:\n%s", out.String())
		}
	})
	return a
}

// xdotool runs xdotool on the app's display and returns its trimmed output.
func (a *desktopApp) xdotool(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "xdotool", args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+a.display)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// waitWindow waits for a visible window whose title is exactly title and remembers it.
func (a *desktopApp) waitWindow(title string, timeout time.Duration) string {
	a.tb.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if a.hasExited() {
			a.tb.Fatalf("the app exited before its window appeared: %v", a.exitErr)
		}
		// xdotool matches names case-insensitively, and GTK also maps a window named after the
		// program ("prototyper"): keep the one whose title is exactly title. Other instances on
		// the same display have windows of the same title: keep this process's.
		out, err := a.xdotool("search", "--all", "--onlyvisible", "--pid", strconv.Itoa(a.cmd.Process.Pid), "--name", "^"+title+"$")
		if err == nil {
			for _, id := range strings.Fields(out) {
				if name, err := a.xdotool("getwindowname", id); err == nil && name == title {
					a.window = id
					a.applyLayout()
					return a.window
				}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	a.tb.Fatalf("no window titled %q within %s", title, timeout)
	return ""
}

// applyLayout resizes the window as the layout asks, the way a user drags its corner.
func (a *desktopApp) applyLayout() {
	l := desktopLayout(a.tb)
	if l.windowW == "" {
		return
	}
	// The app opens at 1200×800, more than this screen: without a window manager to place it, it
	// sits partly off-screen. Move it home first, then resize it.
	if out, err := a.xdotool("windowmove", "--sync", a.window, "0", "0"); err != nil {
		a.tb.Fatalf("move the window: %v (%s)", err, out)
	}
	if out, err := a.xdotool("windowsize", a.window, l.windowW, l.windowH); err != nil {
		a.tb.Fatalf("resize the window to %s×%s: %v (%s)", l.windowW, l.windowH, err, out)
	}
}

// key presses keys (xdotool's names, e.g. "alt+a", "Return") in the focused window, as a user
// at the keyboard does.
func (a *desktopApp) key(keys ...string) {
	a.tb.Helper()
	if out, err := a.xdotool(append([]string{"key", "--clearmodifiers"}, keys...)...); err != nil {
		a.tb.Fatalf("press %v: %v (%s)", keys, err, out)
	}
}

// typeText types text in the focused window.
func (a *desktopApp) typeText(text string) {
	a.tb.Helper()
	if out, err := a.xdotool("type", "--delay", "15", text); err != nil {
		a.tb.Fatalf("type %q: %v (%s)", text, err, out)
	}
}

// typeSeen types text and waits until a text of the window holds it. An action through the
// accessibility tree (press, focus) goes to the page at once, while keys wait their turn on their
// way to it: on a loaded machine it could overtake the last keys typed before it.
func (a *desktopApp) typeSeen(text string) {
	a.tb.Helper()
	a.typeText(text)
	if !a.says(text) {
		a.tb.Fatalf("%q was typed and is not shown (%s)", text, a.screenshot("typed.png"))
	}
}

// typeAsAPersonWould types text at 100 ms a key, a fast typist's pace (120 words a minute):
// what the window adds to a message is measured after keys typed the way a user types them.
// typeText's 15 ms a key is nearly seven times that; a window whose frame takes longer than
// that on a loaded machine is still catching up on the keys when Enter comes.
func (a *desktopApp) typeAsAPersonWould(text string) {
	a.tb.Helper()
	if out, err := a.xdotool("type", "--delay", "100", text); err != nil {
		a.tb.Fatalf("type %q: %v (%s)", text, err, out)
	}
}

// focusWindow gives the window the keyboard focus.
func (a *desktopApp) focusWindow() {
	a.tb.Helper()
	if out, err := a.xdotool("windowfocus", "--sync", a.window); err != nil {
		a.tb.Fatalf("focus the window: %v (%s)", err, out)
	}
}

// property reads an X property of the window with xprop ("" when it is not set).
func (a *desktopApp) property(name string) string {
	a.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "xprop", "-id", a.window, name)
	cmd.Env = append(os.Environ(), "DISPLAY="+a.display)
	out, err := cmd.CombinedOutput()
	if err != nil {
		a.tb.Fatalf("xprop %s: %v (%s)", name, err, out)
	}
	if strings.Contains(string(out), "not found") || strings.Contains(string(out), "no such atom") {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// assertIconAndClass checks what the desktop shows of the window: the app's icon (the taskbar
// and the window switcher read _NET_WM_ICON) and the class the desktop entry names
// (StartupWMClass=prototyper).
func (a *desktopApp) assertIconAndClass() {
	a.tb.Helper()
	if icon := a.property("_NET_WM_ICON"); !strings.HasPrefix(icon, "_NET_WM_ICON(CARDINAL)") {
		a.tb.Errorf("the window has no icon (_NET_WM_ICON: %.80q)", icon)
	}
	if class := a.property("WM_CLASS"); !strings.Contains(class, `"prototyper"`) {
		a.tb.Errorf("WM_CLASS = %q; want the class of the desktop entry, \"prototyper\"", class)
	}
}

// focusedWindow is the X window that has the keyboard focus, decimal.
func (a *desktopApp) focusedWindow() string {
	a.tb.Helper()
	out, err := a.xdotool("getwindowfocus")
	if err != nil {
		a.tb.Fatalf("getwindowfocus: %v (%s)", err, out)
	}
	return out
}

// waitExit waits for the process to exit on its own and returns its exit error.
func (a *desktopApp) waitExit(timeout time.Duration) error {
	a.tb.Helper()
	select {
	case err := <-a.done:
		a.exited, a.exitErr = true, err
		return err
	case <-time.After(timeout):
		a.tb.Fatalf("still running after %s:\n%s", timeout, a.out.String())
		return nil
	}
}

func (a *desktopApp) hasExited() bool {
	if a.exited {
		return true
	}
	select {
	case err := <-a.done:
		a.exited, a.exitErr = true, err
		return true
	default:
		return false
	}
}

// windowName is the window's current title.
func (a *desktopApp) windowName() string {
	a.tb.Helper()
	name, err := a.xdotool("getwindowname", a.window)
	if err != nil {
		a.tb.Fatalf("getwindowname: %v (%s)", err, name)
	}
	return name
}

// wantWindowName waits until the window's title holds want (the title follows the chats' phases
// a moment after the window painted them).
func (a *desktopApp) wantWindowName(want string) {
	a.tb.Helper()
	name := a.windowName()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(name, want) && time.Now().Before(deadline); name = a.windowName() {
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(name, want) {
		a.tb.Errorf("the window's title is %q, want it to say %q", name, want)
	}
}

// screenshot saves the window as a PNG under the artifacts folder and returns its path.
func (a *desktopApp) screenshot(name string) string {
	a.tb.Helper()
	path := filepath.Join(artifactDir(a.tb), artifactName(a.tb, name))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "import", "-window", a.window, path)
	cmd.Env = append(os.Environ(), "DISPLAY="+a.display)
	if out, err := cmd.CombinedOutput(); err != nil {
		a.tb.Fatalf("screenshot with ImageMagick's import: %v\n%s", err, out)
	}
	return path
}

// closeWindow asks the window to close the way a window manager does (WM_DELETE_WINDOW) and
// waits for the process to exit; it returns the exit error (nil for status 0).
func (a *desktopApp) closeWindow(timeout time.Duration) error {
	a.tb.Helper()
	if err := sendDeleteWindow(a.display, a.window); err != nil {
		a.tb.Fatalf("send WM_DELETE_WINDOW: %v", err)
	}
	select {
	case err := <-a.done:
		a.exited, a.exitErr = true, err
		return err
	case <-time.After(timeout):
		a.tb.Fatalf("the app did not exit within %s of its window being closed", timeout)
		return nil
	}
}

// sendDeleteWindow sends the ICCCM WM_DELETE_WINDOW client message to window.
func sendDeleteWindow(display, window string) error {
	id, err := strconv.ParseUint(window, 10, 32)
	if err != nil {
		return err
	}
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return err
	}
	defer conn.Close()
	atom := func(name string) (xproto.Atom, error) {
		r, err := xproto.InternAtom(conn, false, uint16(len(name)), name).Reply()
		if err != nil {
			return 0, err
		}
		return r.Atom, nil
	}
	protocols, err := atom("WM_PROTOCOLS")
	if err != nil {
		return err
	}
	del, err := atom("WM_DELETE_WINDOW")
	if err != nil {
		return err
	}
	ev := xproto.ClientMessageEvent{
		Format: 32,
		Window: xproto.Window(id),
		Type:   protocols,
		Data:   xproto.ClientMessageDataUnionData32New([]uint32{uint32(del), uint32(xproto.TimeCurrentTime), 0, 0, 0}),
	}
	return xproto.SendEventChecked(conn, false, xproto.Window(id), xproto.EventMaskNoEvent, string(ev.Bytes())).Check()
}

// waitForPage waits until the window shows the page (more than a blank background), keeps the
// screenshot as name and returns its path.
func (a *desktopApp) waitForPage(name string, timeout time.Duration) string {
	a.tb.Helper()
	var colours int
	var shot string
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		shot = a.screenshot(name)
		if colours, _ = colourCount(a.tb, shot, 64); colours >= 16 {
			return shot
		}
	}
	a.tb.Fatalf("the window shows %d colours after %s: a blank screen, not the app (screenshot %s)", colours, timeout, shot)
	return ""
}

// colourCount decodes a PNG and counts its distinct colours (up to limit).
func colourCount(tb testing.TB, path string, limit int) (int, image.Rectangle) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		tb.Fatalf("decode screenshot %s: %v", path, err)
	}
	seen := map[uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[(r>>8)<<16|(g>>8)<<8|bl>>8] = true
			if len(seen) >= limit {
				return len(seen), b
			}
		}
	}
	return len(seen), b
}

func describeExit(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return fmt.Sprint(err)
}
