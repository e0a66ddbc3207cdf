//go:build linux

package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/proof"
	"github.com/warden-dev/warden/internal/store"
)

// fullDiskChild is set in the environment of the test binary re-executed
// in a mount namespace of its own, where it may mount a small tmpfs.
const fullDiskChild = "WARDEN_TEST_FULL_DISK_CHILD"

// The marker the child prints once every check passed, so the parent knows
// the scenario really ran.
const fullDiskDone = "full-disk scenario passed"

// TestFullDiskHoldback runs the log on a real, small file system (a 16 MiB
// tmpfs) and fills it: non-gating hook events the log cannot write are held
// (the spool is on the same full disk, so in memory), those past the bound
// are counted, and once space returns every held event is recorded in order
// and the drop is recorded as one log.dropped event with its count.
//
// The tmpfs is mounted by this test binary re-executed in a new mount
// namespace (a user namespace too when not root), with / made private
// first: the mount is invisible outside the child and vanishes with it, so
// nothing is left behind even if the test dies.
func TestFullDiskHoldback(t *testing.T) {
	if os.Getenv(fullDiskChild) == "1" {
		fullDiskScenario(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFullDiskHoldback$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), fullDiskChild+"=1")
	attr := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS}
	if os.Geteuid() != 0 {
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
		attr.GidMappingsEnableSetgroups = false
	}
	cmd.SysProcAttr = attr
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), fullDiskDone) {
		t.Fatalf("full-disk scenario (a test binary in its own mount namespace; needs root or unprivileged user namespaces): %v\n%s", err, out)
	}
}

func fullDiskScenario(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		t.Fatalf("make / private in the test's mount namespace: %v", err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=16m,mode=0700"); err != nil {
		t.Fatalf("mount a 16 MiB tmpfs: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })

	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	c := coretest.New(t, coretest.Options{Dir: data})
	h := NewHandler(c, proof.NewRequestVerifier(testKey), nil)
	in := NewIngester(h, filepath.Join(data, SpoolDirName))
	in.MaxHeld = 3
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	if code, body := post(t, srv.URL, sessionStart, nil); code != http.StatusOK {
		t.Fatalf("session start on a roomy disk: %d %s", code, body)
	}
	fill(t, filepath.Join(dir, "filler"))

	// Five PostToolUse events with a large tool response each: none fits.
	big := strings.Repeat("y", 512<<10)
	var held []Held
	for i := range 5 {
		body := strings.Replace(postToolUse, `"stdout":""`, `"stdout":"`+big+`"`, 1)
		body = strings.Replace(body, "toolu_1", fmt.Sprintf("toolu_%d", i), 1)
		code, answer := post(t, srv.URL, body, nil)
		var a HeldAnswer
		if err := json.Unmarshal([]byte(answer), &a); err != nil || code != http.StatusAccepted {
			t.Fatalf("event %d on a full disk: %d %s", i, code, answer)
		}
		if !strings.Contains(a.Error, "full") {
			t.Errorf("event %d: the answer does not say the disk is full: %s", i, a.Error)
		}
		held = append(held, a.Held)
	}
	// A gated call is never held: it fails closed.
	if code, body := post(t, srv.URL, bash("ls"), nil); code != http.StatusOK || !strings.Contains(body, `"allow":false`) {
		t.Fatalf("PreToolUse on a full disk: %d %s", code, body)
	}
	want := []Held{HeldMemory, HeldMemory, HeldMemory, HeldDropped, HeldDropped}
	if fmt.Sprint(held) != fmt.Sprint(want) {
		t.Fatalf("held %v, want %v", held, want)
	}
	// While the disk is full, ingesting records nothing and keeps everything.
	if n, err := in.Ingest(t.Context()); err == nil || n != 0 {
		t.Fatalf("ingest on a full disk: %d, %v; want an error and nothing recorded", n, err)
	}
	if h, d := in.Pending(); h != 3 || d != 2 {
		t.Fatalf("pending on a full disk: held %d, dropped %d", h, d)
	}

	if err := os.Remove(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
	if n, err := in.Ingest(t.Context()); err != nil || n != 3 {
		t.Fatalf("ingest once space returned: %d, %v", n, err)
	}
	if h, d := in.Pending(); h != 0 || d != 0 {
		t.Fatalf("pending after space returned: held %d, dropped %d", h, d)
	}
	evs, err := c.Events(t.Context(), store.Filter{Session: sid})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		var d struct {
			CallID string `json:"callId"`
		}
		_ = json.Unmarshal(e.Data, &d)
		got = append(got, string(e.Type)+" "+d.CallID)
	}
	if strings.Join(got, ",") != "session.start ,tool.result toolu_0,tool.result toolu_1,tool.result toolu_2" {
		t.Fatalf("session after the full disk: %v", got)
	}
	drops, err := c.Events(t.Context(), store.Filter{Session: event.SystemSession, Types: []event.Type{event.LogDropped}})
	if err != nil || len(drops) != 1 {
		t.Fatalf("log.dropped events: %d, %v", len(drops), err)
	}
	var d struct {
		Dropped int            `json:"dropped"`
		ByHook  map[string]int `json:"byHook"`
		Reason  string         `json:"reason"`
	}
	if err := json.Unmarshal(drops[0].Data, &d); err != nil || d.Dropped != 2 || d.ByHook[EventPostToolUse] != 2 || d.Reason == "" {
		t.Fatalf("log.dropped %s", drops[0].Data)
	}
	fmt.Println(fullDiskDone)
}

// fill writes path until the file system is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, size := range []int{1 << 20, 4 << 10, 512} {
		chunk := make([]byte, size)
		for {
			if _, err := f.Write(chunk); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("fill the disk: %v", err)
				}
				break
			}
		}
	}
}
