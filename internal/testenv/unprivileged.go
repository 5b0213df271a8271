package testenv

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"
)

// UnprivilegedUser is the system user the privilege-dependent tests run as: CI runs as root,
// users do not, and root passes checks a user would not (overlay copy-up of any owner, a
// folder it cannot read, RLIMIT_NPROC).
const UnprivilegedUser = "prototyper-sandbox-test"

// Unprivileged is a test binary about to run again as [UnprivilegedUser].
type Unprivileged struct {
	Base    string   // a folder the user can enter, holding the binary, its home and its /tmp
	UID     int      // the user's ids, for files the test makes theirs
	GID     int      //
	Env     []string // the rerun's environment: PATH, HOME, TMPDIR, the marker, the components' demand
	binary  string
	user    *user.User
	testing testing.TB
}

// AsUnprivileged prepares the rerun of this test binary as [UnprivilegedUser], creating the
// user when missing. It returns nil, having skipped tb, when the run is already that rerun
// (marker set in the environment) or not root. env is the marker variable the rerun carries.
func AsUnprivileged(tb testing.TB, marker string) *Unprivileged {
	tb.Helper()
	if os.Getenv(marker) != "" {
		tb.Skip("this run is the unprivileged one")
	}
	if os.Getuid() != 0 {
		tb.Skip("the suite already runs as an unprivileged user")
	}
	u, uid, gid := UnprivilegedIDs(tb)
	base, err := os.MkdirTemp("", "prototyper-unprivileged-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	for _, d := range []string{"tmp", "home"} {
		os.Mkdir(filepath.Join(base, d), 0o700)
		os.Chown(filepath.Join(base, d), uid, gid)
	}
	bin := filepath.Join(base, filepath.Base(os.Args[0]))
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		tb.Fatal(err)
	}
	return &Unprivileged{
		Base: base, UID: uid, GID: gid, binary: bin, user: u, testing: tb,
		Env: []string{
			"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(base, "home"), "TMPDIR=" + filepath.Join(base, "tmp"),
			marker + "=1", "PROTOTYPER_REQUIRE_COMPONENTS=" + os.Getenv("PROTOTYPER_REQUIRE_COMPONENTS"),
		},
	}
}

// UnprivilegedIDs returns [UnprivilegedUser] and its uid and gid, creating the user when
// missing (the caller must be root).
func UnprivilegedIDs(tb testing.TB) (u *user.User, uid, gid int) {
	tb.Helper()
	u, err := user.Lookup(UnprivilegedUser)
	if err != nil {
		if out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", UnprivilegedUser).CombinedOutput(); err != nil {
			tb.Fatalf("useradd: %v\n%s", err, out)
		}
		if u, err = user.Lookup(UnprivilegedUser); err != nil {
			tb.Fatal(err)
		}
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return u, uid, gid
}

// Run runs the test binary as the user with args (-test.run, -test.skip, …) and fails the
// test when the rerun fails, with its whole output.
func (u *Unprivileged) Run(args ...string) {
	tb := u.testing
	tb.Helper()
	cmd := exec.Command("setpriv", append([]string{"--reuid=" + u.user.Uid, "--regid=" + u.user.Gid, "--clear-groups", "--",
		u.binary, "-test.count=1", "-test.v"}, args...)...)
	cmd.Dir = u.Base
	cmd.Env = u.Env
	out, err := cmd.CombinedOutput()
	tb.Logf("as %s (uid %s):\n%s", UnprivilegedUser, u.user.Uid, out)
	if err != nil {
		tb.Fatalf("the tests failed as an unprivileged user: %v", err)
	}
}
