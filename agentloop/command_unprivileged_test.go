package agentloop

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"
)

const (
	unprivilegedUser = "prototyper-sandbox-test"
	unprivilegedEnv  = "PROTOTYPER_LOOP_UNPRIVILEGED"
)

// Users do not run the app as root, and root passes checks a user would not (overlay copy-up
// of any owner, a folder it cannot read): the command cases of the loop run again as an
// ordinary user, with a home and a /tmp of that user's own.
func TestEveryCommandCaseHoldsForAnUnprivilegedUser(t *testing.T) {
	if os.Getenv(unprivilegedEnv) != "" {
		t.Skip("this run is the unprivileged one")
	}
	if os.Getuid() != 0 {
		t.Skip("the suite already runs as an unprivileged user")
	}
	needSandbox(t)
	u, err := user.Lookup(unprivilegedUser)
	if err != nil {
		if out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", unprivilegedUser).CombinedOutput(); err != nil {
			t.Fatalf("useradd: %v\n%s", err, out)
		}
		if u, err = user.Lookup(unprivilegedUser); err != nil {
			t.Fatal(err)
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	base, err := os.MkdirTemp("", "prototyper-loop-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	for _, d := range []string{"tmp", "home"} {
		os.Mkdir(filepath.Join(base, d), 0o700)
		os.Chown(filepath.Join(base, d), uid, gid)
	}
	bin := filepath.Join(base, "agentloop.test")
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("setpriv", "--reuid="+u.Uid, "--regid="+u.Gid, "--clear-groups", "--",
		bin, "-test.count=1", "-test.v", "-test.run", "TestACommand|TestStopEndsACommand|TestWithoutTheSandbox|TestATerminalIsAsked")
	cmd.Dir = base
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(base, "home"), "TMPDIR=" + filepath.Join(base, "tmp"),
		unprivilegedEnv + "=1", "PROTOTYPER_REQUIRE_COMPONENTS=" + os.Getenv("PROTOTYPER_REQUIRE_COMPONENTS"),
	}
	out, err := cmd.CombinedOutput()
	t.Logf("as %s (uid %s):\n%s", unprivilegedUser, u.Uid, out)
	if err != nil {
		t.Fatalf("the command cases failed as an unprivileged user: %v", err)
	}
}
