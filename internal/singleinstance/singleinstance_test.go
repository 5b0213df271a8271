package singleinstance

import (
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"prototyper/internal/testenv"
)

// privateBus points the process at a session bus of the test's own.
func privateBus(tb testing.TB) {
	tb.Helper()
	tb.Setenv("DBUS_SESSION_BUS_ADDRESS", testenv.SessionBus(tb))
}

func TestASecondClaimOnTheSameDatabaseRaisesTheFirstAndStepsAside(t *testing.T) {
	privateBus(t)
	db := filepath.Join(t.TempDir(), "prototyper.db")
	raised := make(chan struct{}, 1)
	first, err := Claim(db, func() { raised <- struct{}{} })
	if err != nil {
		t.Fatalf("first claim: %v", err)
	}
	defer first.Release()

	second, err := Claim(db, nil)
	if !errors.Is(err, ErrAlreadyRunning) {
		t.Fatalf("second claim on the same database = %v, %v; want ErrAlreadyRunning", second, err)
	}
	select {
	case <-raised:
	case <-time.After(5 * time.Second):
		t.Fatal("the first instance was never asked to raise its window")
	}
}

func TestClaimsOnDifferentDatabasesRunSideBySide(t *testing.T) {
	privateBus(t)
	dir := t.TempDir()
	a, err := Claim(filepath.Join(dir, "a.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	b, err := Claim(filepath.Join(dir, "b.db"), nil)
	if err != nil {
		t.Fatalf("a claim on another database = %v; want it primary", err)
	}
	b.Release()
}

func TestAReleasedDatabaseCanBeClaimedAgain(t *testing.T) {
	privateBus(t)
	db := filepath.Join(t.TempDir(), "prototyper.db")
	first, err := Claim(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	first.Release()
	again, err := Claim(db, nil)
	if err != nil {
		t.Fatalf("claim after release = %v; want primary", err)
	}
	again.Release()
}

func TestWithoutASessionBusEveryLaunchIsPrimary(t *testing.T) {
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	db := filepath.Join(t.TempDir(), "prototyper.db")
	for range 2 {
		inst, err := Claim(db, nil)
		if err != nil {
			t.Fatalf("claim without a bus = %v; want primary (the database lock decides)", err)
		}
		inst.Release()
	}
}

func TestTheBusNameFollowsTheDatabaseFileNotTheSpelling(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := exec.Command("ln", "-s", dir, link).Run(); err != nil {
		t.Fatal(err)
	}
	if BusName(filepath.Join(dir, "x.db")) != BusName(filepath.Join(link, "x.db")) {
		t.Error("one database reached through a link got another bus name")
	}
	if BusName(filepath.Join(dir, "x.db")) == BusName(filepath.Join(dir, "y.db")) {
		t.Error("two databases share a bus name")
	}
}
