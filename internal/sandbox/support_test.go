package sandbox

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"testing"
)

// TestSupportSaysWhatIsNotEnforced: each older ABI names what it cannot
// enforce, so warden serve and warden sandbox explain can say it.
func TestSupportSaysWhatIsNotEnforced(t *testing.T) {
	for _, tc := range []struct {
		abi      int
		enforced bool
		complete bool
		mention  []string
		absent   []string
	}{
		{0, false, false, []string{"not available", "unconfined"}, nil},
		{1, true, false, []string{"truncating", "ioctl", "signals", "abstract Unix", "Unix socket", "network"}, nil},
		{4, true, false, []string{"ioctl", "signals", "Unix socket"}, []string{"truncating"}},
		{5, true, false, []string{"signals", "abstract Unix"}, []string{"ioctl on device"}},
		{7, true, true, []string{"Unix socket", "sandbox.unixSockets", "network", "chmod"}, []string{"signals", "abstract Unix"}},
		{9, true, true, []string{"network"}, []string{"Unix socket", "signals"}},
	} {
		s := supportFor(tc.abi)
		all := strings.Join(s.NotEnforced, "\n")
		if s.Enforced() != tc.enforced || s.Complete() != tc.complete {
			t.Errorf("ABI %d: enforced %v complete %v", tc.abi, s.Enforced(), s.Complete())
		}
		for _, m := range tc.mention {
			if !strings.Contains(all, m) {
				t.Errorf("ABI %d: NotEnforced does not mention %q:\n%s", tc.abi, m, all)
			}
		}
		for _, m := range tc.absent {
			if strings.Contains(all, m) {
				t.Errorf("ABI %d: NotEnforced mentions %q, which this ABI enforces:\n%s", tc.abi, m, all)
			}
		}
		if !strings.Contains(s.String(), "not enforced") && tc.enforced {
			t.Errorf("ABI %d: String() = %q", tc.abi, s.String())
		}
	}
}

func TestLogSupport(t *testing.T) {
	var buf bytes.Buffer
	LogSupport(context.Background(), slog.New(slog.NewTextHandler(&buf, nil)))
	s := Detect()
	out := buf.String()
	if !strings.Contains(out, "sandbox") || !strings.Contains(out, "abi="+strconv.Itoa(s.ABI)) {
		t.Errorf("LogSupport: %q (kernel ABI %d)", out, s.ABI)
	}
	if !strings.Contains(out, "network connections are not restricted") {
		t.Errorf("LogSupport does not say what is not enforced: %q", out)
	}
}

// TestFailsClosedWithoutLandlock: on a kernel without Landlock nothing is
// confined, so nothing runs unless the caller allowed running unconfined.
func TestFailsClosedWithoutLandlock(t *testing.T) {
	p := &Profile{Workspace: "/w", Grants: []Entry{{Path: "/w", Access: ReadWrite}}}
	none := supportFor(0)
	if _, err := restrictForExec(p, none, false); !errors.Is(err, ErrNotEnforced) {
		t.Errorf("no Landlock, not allowed: %v (want ErrNotEnforced)", err)
	}
	if s, err := restrictForExec(p, none, true); err != nil || s.Enforced() {
		t.Errorf("no Landlock, --allow-unconfined: %v, %+v", err, s)
	}
	if !strings.Contains(ErrNotEnforced.Error(), "--allow-unconfined") {
		t.Errorf("the error does not say how to run anyway: %v", ErrNotEnforced)
	}
}
