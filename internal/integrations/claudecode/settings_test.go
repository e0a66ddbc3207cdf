package claudecode

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const cmd = "/usr/local/bin/warden hook claude"

// userSettings has the user's own hooks (one in a PreToolUse group warden
// also uses) and other keys.
const userSettings = `{
  "model": "opus",
  "permissions": {"allow": ["Bash(go test:*)"]},
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/audit.sh", "timeout": 5}]}],
    "PostToolBatch": [{"hooks": [{"type": "command", "command": "echo batch"}]}]
  }
}`

func mustParse(t *testing.T, s string) map[string]any {
	t.Helper()
	m, err := Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMergeKeepsUserSettingsAndIsIdempotent(t *testing.T) {
	in := mustParse(t, userSettings)
	out, changes := Merge(in, cmd)
	if len(changes) != len(Hooks()) {
		t.Fatalf("changes: %v", changes)
	}
	if !reflect.DeepEqual(mustParse(t, userSettings), in) {
		t.Fatal("Merge changed its input")
	}
	if out["model"] != "opus" || out["permissions"] == nil {
		t.Fatalf("other keys: %v", out)
	}
	hooks := out["hooks"].(map[string]any)
	pre := hooks["PreToolUse"].([]any)
	if len(pre) != 2 || pre[0].(map[string]any)["matcher"] != "Bash" {
		t.Fatalf("user's PreToolUse group: %v", pre)
	}
	w := pre[1].(map[string]any)
	if w["matcher"] != "*" || w["hooks"].([]any)[0].(map[string]any)["command"] != Guard(cmd) || w["hooks"].([]any)[0].(map[string]any)["timeout"] != json.Number("150") {
		t.Fatalf("warden's group: %v", w)
	}
	if _, ok := hooks["PostToolBatch"]; !ok {
		t.Fatal("user's PostToolBatch removed")
	}
	// Round trip through the file format, then merge again: nothing changes.
	b, err := Encode(out)
	if err != nil {
		t.Fatal(err)
	}
	again, changes := Merge(mustParse(t, string(b)), cmd)
	if len(changes) != 0 || !reflect.DeepEqual(again, mustParse(t, string(b))) {
		t.Fatalf("second merge changed: %v", changes)
	}
	// A new command (moved binary) updates in place.
	moved, changes := Merge(again, "/opt/warden hook claude --auto-approve")
	if len(changes) != len(Hooks()) || !strings.HasPrefix(changes[0], "updated ") {
		t.Fatalf("update: %v", changes)
	}
	if n := countWarden(moved["hooks"].(map[string]any)["PreToolUse"].([]any)); n != 1 {
		t.Fatalf("warden hooks after update: %d", n)
	}
	// Remove takes out only warden's hooks.
	removed, changes := Remove(moved)
	if len(changes) != len(Hooks()) {
		t.Fatalf("remove: %v", changes)
	}
	if !reflect.DeepEqual(removed, mustParse(t, userSettings)) {
		b, _ := Encode(removed)
		t.Fatalf("after remove:\n%s", b)
	}
	if _, changes := Remove(removed); len(changes) != 0 {
		t.Fatalf("second remove: %v", changes)
	}
}

func TestRemoveDropsEmptyHooks(t *testing.T) {
	out, _ := Merge(map[string]any{}, cmd)
	removed, _ := Remove(out)
	if len(removed) != 0 {
		t.Fatalf("after remove: %v", removed)
	}
}

func TestIsWardenCommand(t *testing.T) {
	for s, want := range map[string]bool{
		"/usr/local/bin/warden hook claude":                true,
		"'/home/a b/warden' hook claude --data-dir '/x y'": true,
		"warden hook claude":                               true,
		"~/bin/audit.sh":                                   false,
		"other hook claude":                                false,
		"warden hook opencode":                             false,
		"":                                                 false,
		Command("/tmp/dir with space/warden", "--data-dir", "/d"): true,
	} {
		if got := IsWardenCommand(s); got != want {
			t.Errorf("IsWardenCommand(%q) = %v", s, got)
		}
	}
}

func TestParseRefusesNonObjects(t *testing.T) {
	for _, s := range []string{"[]", "1", "{", `{"hooks":[]}`, `{} {}`} {
		if _, err := Parse([]byte(s)); err == nil {
			t.Errorf("Parse(%q) accepted", s)
		}
	}
	if m, err := Parse([]byte("  \n")); err != nil || len(m) != 0 {
		t.Fatalf("empty: %v %v", m, err)
	}
}

func TestInstallUninstallFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "settings.json")
	ch, err := Install(path, cmd)
	if err != nil || ch.Action != "created" {
		t.Fatalf("install: %+v %v", ch, err)
	}
	before, _ := os.ReadFile(path)
	ch, err = Install(path, cmd)
	if err != nil || ch.Action != "unchanged" {
		t.Fatalf("reinstall: %+v %v", ch, err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("reinstall rewrote the file")
	}
	ch, err = Uninstall(path)
	if err != nil || ch.Action != "updated" {
		t.Fatalf("uninstall: %+v %v", ch, err)
	}
	if b, _ := os.ReadFile(path); strings.TrimSpace(string(b)) != "{}" {
		t.Fatalf("after uninstall: %s", b)
	}
	// A broken file is never overwritten.
	if err := os.WriteFile(path, []byte("{oops"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(path, cmd); err == nil {
		t.Fatal("installed over a broken file")
	}
	if b, _ := os.ReadFile(path); string(b) != "{oops" {
		t.Fatalf("broken file changed: %s", b)
	}
	if ch, err := Uninstall(filepath.Join(dir, "none.json")); err != nil || ch.Action != "absent" {
		t.Fatalf("uninstall absent: %+v %v", ch, err)
	}
}

// FuzzMerge: for any settings the parser accepts, merging keeps every
// non-hook key, is idempotent through the file format, and removing gives
// settings with no warden hook.
func FuzzMerge(f *testing.F) {
	f.Add([]byte(userSettings))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"warden hook claude"}]},7,{"hooks":"x"}]}}`))
	f.Add([]byte(`{"hooks":{"PreToolUse":"bad"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := Parse(data)
		if err != nil {
			return
		}
		out, _ := Merge(in, cmd)
		for k, v := range in {
			if k != "hooks" && !reflect.DeepEqual(out[k], v) {
				t.Fatalf("key %q changed", k)
			}
		}
		b, err := Encode(out)
		if err != nil {
			t.Fatal(err)
		}
		re, err := Parse(b)
		if err != nil {
			t.Fatalf("merged settings do not parse: %v\n%s", err, b)
		}
		if _, changes := Merge(re, cmd); len(changes) != 0 {
			t.Fatalf("second merge changed %v\n%s", changes, b)
		}
		removed, _ := Remove(re)
		if h, ok := removed["hooks"].(map[string]any); ok {
			for ev, l := range h {
				if list, ok := l.([]any); ok && countWarden(list) != 0 {
					t.Fatalf("warden hook left in %s", ev)
				}
			}
		}
	})
}

// The guarded gate command, run by /bin/sh as Claude Code runs it: a missing
// or failing warden becomes exit 2 with a reason; warden's own answers
// (stdout with exit 0, a block with exit 2) pass through untouched.
func TestGuardFailsClosed(t *testing.T) {
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name, binary     string
		exit             int
		stdout, inStderr string
	}{
		{"missing binary", filepath.Join(dir, "gone", "warden"), 2, "", "exit status 127"},
		{"not executable", filepath.Join(dir, "README"), 2, "", "exit status 126"},
		{"crash", script("warden-crash", "exit 1"), 2, "", "exit status 1 "},
		{"killed", script("warden-killed", "kill -9 $$"), 2, "", "exit status 137"},
		{"allow", script("warden-allow", `echo '{"ok":1}'`), 0, `{"ok":1}`, ""},
		{"warden's own block", script("warden-block", "echo 'warden blocked this call' >&2; exit 2"), 2, "", "warden blocked this call"},
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command("/bin/sh", "-c", Guard(Command(tc.binary)))
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.exit || strings.TrimSpace(out.String()) != tc.stdout || !strings.Contains(errb.String(), tc.inStderr) {
				t.Fatalf("exit %d stdout %q stderr %q", code, out.String(), errb.String())
			}
			if tc.name == "warden's own block" && strings.Contains(errb.String(), "exit status") {
				t.Fatalf("warden's own block got a second reason: %q", errb.String())
			}
		})
	}
	if !IsWardenCommand(Guard(Command("/opt/warden", "--data-dir", "/d"))) {
		t.Fatal("a guarded command is not recognised as warden's")
	}
}
