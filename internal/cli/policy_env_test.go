package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/daemon"
)

// TestPolicyEnvKnowsThisWarden: the policy commands judge with the data
// dir the daemon uses (here $WARDEN_DATA_DIR), the daemon's pid and this
// binary, so `warden policy explain` answers as the daemon does.
func TestPolicyEnvKnowsThisWarden(t *testing.T) {
	data := t.TempDir()
	t.Setenv("WARDEN_DATA_DIR", data)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	b, _ := json.Marshal(daemon.Runtime{PID: 4242, DataDir: data})
	if err := os.WriteFile(filepath.Join(data, daemon.RuntimeName), b, 0o600); err != nil {
		t.Fatal(err)
	}
	o := &options{}
	env := o.policyEnv("")
	if !slices.Contains(env.ProtectedDirs, data) {
		t.Errorf("ProtectedDirs %v lack the data dir %s", env.ProtectedDirs, data)
	}
	if !slices.Contains(env.DaemonPIDs, 4242) {
		t.Errorf("DaemonPIDs %v lack the daemon's pid", env.DaemonPIDs)
	}
	if len(env.WardenBinaries) == 0 {
		t.Errorf("WardenBinaries is empty")
	}

	var out, errOut bytes.Buffer
	code := Main([]string{"policy", "explain", "--", "cat " + filepath.Join(data, "token")}, strings.NewReader(""), &out, &errOut)
	if code != 0 || !strings.Contains(out.String(), "DENY") || !strings.Contains(out.String(), "warden-data") {
		t.Errorf("explain of a read of the moved data dir's token: code %d\n%s%s", code, out.String(), errOut.String())
	}
	out.Reset()
	Main([]string{"policy", "explain", "--", "kill -9 4242"}, strings.NewReader(""), &out, &errOut)
	if !strings.Contains(out.String(), "warden-signal") {
		t.Errorf("explain of kill of the daemon's pid:\n%s", out.String())
	}
}
