package opencode

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	plugin "github.com/warden-dev/warden/plugins/opencode"
)

func TestInstallIsIdempotentAndLeavesOthersAlone(t *testing.T) {
	proj := t.TempDir()
	other := filepath.Join(proj, ".opencode", "plugin", "mine.js")
	if err := os.MkdirAll(filepath.Dir(other), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte("export const Mine = async () => ({})\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tgt := Target{Project: proj}
	for i, want := range []string{"installed", "unchanged"} {
		ch, err := Install(tgt)
		if err != nil || ch.Action != want {
			t.Fatalf("install #%d: %+v %v, want %s", i+1, ch, err, want)
		}
	}
	got, _ := os.ReadFile(filepath.Join(proj, ".opencode", "plugin", plugin.FileName))
	if !bytes.Equal(got, plugin.Source()) {
		t.Fatal("installed file differs from the embedded plugin")
	}
	os.WriteFile(filepath.Join(proj, ".opencode", "plugin", plugin.FileName), []byte("old"), 0o644)
	if ch, _ := Install(tgt); ch.Action != "updated" {
		t.Fatalf("stale plugin: %+v", ch)
	}
	for i, want := range []string{"removed", "absent"} {
		ch, err := Uninstall(tgt)
		if err != nil || ch.Action != want {
			t.Fatalf("uninstall #%d: %+v %v", i+1, ch, err)
		}
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatal("another plugin was touched")
	}
}

// The data dir the install was made for is recorded in the plugin (it finds
// warden's key and address there); another data dir is an update.
func TestInstallRecordsTheDataDir(t *testing.T) {
	proj := t.TempDir()
	data := filepath.Join(t.TempDir(), `odd "dir" \ name`)
	if ch, err := Install(Target{Project: proj, DataDir: data}); err != nil || ch.Action != "installed" {
		t.Fatalf("%+v %v", ch, err)
	}
	got, _ := os.ReadFile(filepath.Join(proj, ".opencode", "plugin", plugin.FileName))
	q, _ := json.Marshal(data)
	if !bytes.Contains(got, []byte("const INSTALLED_DATA_DIR = "+string(q)+"\n")) {
		t.Fatalf("data dir not recorded:\n%s", got)
	}
	if ch, _ := Install(Target{Project: proj, DataDir: data}); ch.Action != "unchanged" {
		t.Fatalf("same data dir: %+v", ch)
	}
	if ch, _ := Install(Target{Project: proj, DataDir: data + "2"}); ch.Action != "updated" {
		t.Fatalf("other data dir: %+v", ch)
	}
}

func TestGlobalTarget(t *testing.T) {
	cfg := t.TempDir()
	ch, err := Install(Target{ConfigHome: cfg})
	if err != nil || ch.Path != filepath.Join(cfg, "opencode", "plugin", plugin.FileName) {
		t.Fatalf("%+v %v", ch, err)
	}
	if _, err := (Target{}).PluginPath(); err == nil {
		t.Fatal("no config home must be an error")
	}
}
