package tether

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"prototyper/internal/testenv"
)

// The test binary doubles as an app, its program and the program's child, as the
// environment says.
const (
	appEnv   = "TETHER_TEST_APP"   // an app that starts a program and waits to be killed
	treeEnv  = "TETHER_TEST_TREE"  // a program that starts a child and waits
	sleepEnv = "TETHER_TEST_SLEEP" // a child that sleeps
)

func TestMain(m *testing.M) {
	Supervise()
	switch {
	case os.Getenv(sleepEnv) != "":
		time.Sleep(time.Hour)
		os.Exit(0)
	case os.Getenv(treeEnv) != "":
		os.Exit(tree())
	case os.Getenv(appEnv) != "":
		os.Exit(app())
	}
	os.Exit(m.Run())
}

// tree starts a child that sleeps, says "ready", and sleeps.
func tree() int {
	child := exec.Command(os.Args[0])
	child.Env = append(os.Environ(), sleepEnv+"=1")
	if err := child.Start(); err != nil {
		fmt.Println("cannot start the child:", err)
		return 1
	}
	fmt.Println("ready")
	time.Sleep(time.Hour)
	return 0
}

// app starts the tree tethered, passes on its "ready" with the mode, and waits to be killed.
func app() int {
	out, in, err := os.Pipe()
	if err != nil {
		return 1
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), treeEnv+"=1")
	cmd.Stdout = in
	p, err := Start(cmd)
	if err != nil {
		fmt.Println("cannot start the program:", err)
		return 1
	}
	in.Close()
	line, _ := bufio.NewReader(out).ReadString('\n')
	fmt.Printf("%s %s\n", strings.TrimSpace(line), p.Mode)
	time.Sleep(time.Hour)
	return 0
}

// TestAKilledAppLeavesNoProcessOfItsProgramsTreeBehind kills an app with SIGKILL once its
// program and the program's child run, and waits for every process below the app to end.
func TestAKilledAppLeavesNoProcessOfItsProgramsTreeBehind(t *testing.T) {
	for _, mode := range []Mode{ModeNamespace, ModeSupervisor} {
		chosen := map[Mode]string{ModeSupervisor: string(ModeSupervisor)}[mode]
		t.Run(string(mode), func(t *testing.T) { killedApp(t, mode, chosen, nil) })
		t.Run(string(mode)+" as a user who is not root", func(t *testing.T) {
			killedApp(t, mode, chosen, unprivileged(t))
		})
	}
}

// TestWhereTheKernelRefusesANamespaceTheSupervisorServes: an app that may not make a PID
// namespace (root without CAP_SYS_ADMIN) starts its program under the supervisor, which ends
// the program's tree when the app is killed.
func TestWhereTheKernelRefusesANamespaceTheSupervisorServes(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the test drops a capability of root")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Fatal("setpriv (util-linux) is needed to drop CAP_SYS_ADMIN")
	}
	killedApp(t, ModeSupervisor, "", []string{setpriv, "--bounding-set=-sys_admin", "--inh-caps=-sys_admin", os.Args[0]})
}

// unprivileged is the command prefix that runs the app as nobody, the test binary copied
// where nobody can run it; it skips when the test does not run as root (then every run is
// unprivileged already).
func unprivileged(t *testing.T) []string {
	if os.Geteuid() != 0 {
		t.Skip("the test runs as a user who is not root already")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Fatal("setpriv (util-linux) is needed to run the app as a user who is not root")
	}
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		_ = os.Chmod(d, 0o755)
	}
	bin := filepath.Join(dir, "app")
	raw, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, raw, 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", bin}
}

// killedApp starts an app (prefix: the command that runs it) whose ModeEnv is chosen, wants
// its program started in mode, kills the app and waits for every process below it to end.
func killedApp(t *testing.T, mode Mode, chosen string, prefix []string) {
	argv := prefix
	if argv == nil {
		argv = []string{os.Args[0]}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), appEnv+"=1", ModeEnv+"="+chosen)
	cmd.Dir = "/"
	out := testenv.StartApp(t, cmd)
	line, err := bufio.NewReader(out).ReadString('\n')
	if want := "ready " + string(mode) + "\n"; line != want {
		rest, _ := io.ReadAll(out)
		t.Fatalf("the app said %q%s, %v; want %q", line, rest, err, want)
	}
	tree := Descendants(cmd.Process.Pid)
	if min := map[Mode]int{ModeNamespace: 2, ModeSupervisor: 3}[mode]; len(tree) < min {
		t.Fatalf("the app's tree is %v; want the program and its child (and a supervisor)", tree)
	}
	killedAt := time.Now()
	_ = cmd.Process.Signal(syscall.SIGKILL)
	testenv.WaitTreeGone(t, tree, 20*time.Second)
	t.Logf("%d processes below the app were gone %s after its SIGKILL", len(tree), time.Since(killedAt).Round(time.Millisecond))
}

// A binary whose main never called Supervise is not run again as a supervisor (it would run
// its own main again: a test binary, its tests): the start fails saying so.
func TestAProgramIsNotSupervisedByABinaryThatCannotSupervise(t *testing.T) {
	canSupervise.Store(false)
	defer canSupervise.Store(true)
	p, err := StartSupervised(exec.Command("true"))
	if err == nil {
		p.Kill()
		t.Fatal("started under a binary that cannot supervise")
	}
	if !strings.Contains(err.Error(), "tether.Supervise") {
		t.Errorf("error %q does not say why", err)
	}
}
