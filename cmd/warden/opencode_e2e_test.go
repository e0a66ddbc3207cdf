package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/fakemodel/openai"
)

// End-to-end tests with the real OpenCode binary (npm opencode-ai@1.18.33,
// installed by scripts/install-agents.sh) and a fake OpenAI-compatible model.

func repoRoot(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func openCodeBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(repoRoot(t), ".cache", "agents", "node_modules", "opencode-ai", "bin", "opencode.exe")
	if _, err := os.Stat(bin); err != nil {
		alt := filepath.Join(repoRoot(t), ".cache", "agents", "node_modules", "opencode-linux-x64", "bin", "opencode")
		if _, err2 := os.Stat(alt); err2 != nil {
			t.Fatalf("the real OpenCode is not installed (%v): run scripts/install-agents.sh (make test does)", err)
		}
		bin = alt
	}
	return bin
}

// openCodeEnv prepares an isolated HOME with warden's plugin installed
// globally, the way a user would (`warden install opencode --global`), and
// the plugin's npm dependency in place so OpenCode does not try the network.
func openCodeEnv(t *testing.T, home string) {
	t.Helper()
	cmd := exec.Command(binary, "install", "opencode", "--global")
	cmd.Env = isolatedEnv(t, home)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "installed") {
		t.Fatalf("warden install opencode: %v\n%s", err, out)
	}
	cfg := filepath.Join(home, ".config", "opencode")
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(cfg, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package.json", `{"dependencies":{"@opencode-ai/plugin":"1.18.33"}}`)
	write("package-lock.json", `{"lockfileVersion":3,"packages":{"":{"dependencies":{"@opencode-ai/plugin":"1.18.33"}}}}`)
	src := filepath.Join(repoRoot(t), ".cache", "agents", "node_modules", "@opencode-ai", "plugin")
	dst := filepath.Join(cfg, "node_modules", "@opencode-ai")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-r", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("copy plugin dependency: %v %s", err, out)
	}
}

type openCodeRun struct {
	home, proj, monitorURL, dataDir string
	model                           *openai.Server
}

// use points the run at daemon d: its monitor door, and its data dir, where
// the plugin reads warden's public key.
func (r *openCodeRun) use(d *daemon) {
	r.monitorURL = "http://" + d.monitor + "/agent-monitor"
	r.dataDir = d.dataDir
}

func (r openCodeRun) run(t *testing.T, prompt string) string {
	t.Helper()
	conf := map[string]any{
		"autoupdate": false, "share": "disabled", "enabled_providers": []string{"fake"},
		"model": "fake/fake-model", "small_model": "fake/fake-model",
		// OpenCode's own permission system steps aside: warden decides.
		"permission": map[string]any{"bash": "allow", "edit": "allow", "webfetch": "allow"},
		"provider": map[string]any{"fake": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Fake",
			"options": map[string]any{"baseURL": r.model.URL + "/v1", "apiKey": "dummy"},
			"models":  map[string]any{"fake-model": map[string]any{"name": "Fake Model", "tool_call": true, "limit": map[string]any{"context": 100000, "output": 4096}}},
		}},
	}
	confJSON, _ := json.Marshal(conf)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, openCodeBinary(t), "run", prompt)
	cmd.Dir = r.proj
	cmd.Env = append(isolatedEnv(t, r.home),
		"XDG_CACHE_HOME="+filepath.Join(r.home, ".cache"),
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "npm_config_registry=http://127.0.0.1:9/",
		"OPENCODE_CONFIG_CONTENT="+string(confJSON),
		"WARDEN_MONITOR_TIMEOUT_MS=60000",
	)
	if r.monitorURL != "" {
		cmd.Env = append(cmd.Env, "WARDEN_MONITOR_URL="+r.monitorURL)
	}
	if r.dataDir != "" {
		cmd.Env = append(cmd.Env, "WARDEN_DATA_DIR="+r.dataDir)
	}
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("opencode run did not finish: %v\n%s", err, out)
	}
	return string(out)
}

func newOpenCodeRun(t *testing.T, dir string, script openai.Script) openCodeRun {
	home := filepath.Join(dir, "home")
	proj := filepath.Join(dir, "proj")
	for _, d := range []string{home, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = proj
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q")
	os.WriteFile(filepath.Join(proj, "README.md"), []byte("hi\n"), 0o644)
	git("add", ".")
	git("commit", "-qm", "init")
	openCodeEnv(t, home)
	m := openai.New(script)
	t.Cleanup(m.Close)
	return openCodeRun{home: home, proj: proj, model: m}
}

func logOf(t *testing.T, data string) []ev {
	out, errOut, code := warden(t, data, "", "events", "--json")
	if code != 0 {
		t.Fatalf("events: %s", errOut)
	}
	return parseEvents(t, out)
}

func findDecision(t *testing.T, evs []ev, final bool) map[string]any {
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Type == "tool.decision" {
			var d map[string]any
			json.Unmarshal(evs[i].Data, &d)
			if !final || d["final"] == true {
				return d
			}
		}
	}
	t.Fatalf("no tool.decision in the log")
	return nil
}

func toolResultsMention(m *openai.Server, s string) bool {
	for _, r := range m.Requests() {
		for _, tr := range r.ToolResults() {
			if strings.Contains(tr, s) {
				return true
			}
		}
	}
	return false
}

func TestOpenCodeSafeAndDangerous(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	d := startDaemon(t, data)

	// A safe command runs, and call, decision and result are in the log.
	r := newOpenCodeRun(t, filepath.Join(dir, "a"), openai.ToolOnce("bash", map[string]any{"command": "touch made.txt", "description": "make a file"}))
	r.use(d)
	out := r.run(t, "make a file")
	if _, err := os.Stat(filepath.Join(r.proj, "made.txt")); err != nil {
		t.Fatalf("the allowed command did not run: %v\n%s", err, out)
	}
	evs := logOf(t, data)
	types := map[string]int{}
	for _, e := range evs {
		types[e.Type]++
		if e.Source != "opencode/monitor" || e.Workspace != r.proj {
			t.Fatalf("event %+v: wrong source or workspace", e)
		}
	}
	for _, ty := range []string{"session.start", "tool.call", "tool.decision", "tool.result", "session.status"} {
		if types[ty] == 0 {
			t.Fatalf("no %s in the log: %v", ty, types)
		}
	}
	if d := findDecision(t, evs, true); d["decision"] != "allow" {
		t.Fatalf("decision %v", d)
	}

	// A dangerous command (it would send a private key into the project)
	// is blocked before it touches the disk, and the model is told why.
	// (The test dirs live under /tmp, a temp dir the default policy lets
	// agents write to, so the danger here is the secret.)
	key := filepath.Join(dir, "b", "home", ".ssh", "id_ed25519")
	os.MkdirAll(filepath.Dir(key), 0o700)
	os.WriteFile(key, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\n"), 0o600)
	r = newOpenCodeRun(t, filepath.Join(dir, "b"), openai.ToolOnce("bash", map[string]any{"command": "cat ~/.ssh/id_ed25519 > leaked.txt", "description": "read"}))
	r.use(d)
	out = r.run(t, "read the key")
	if _, err := os.Stat(filepath.Join(r.proj, "leaked.txt")); err == nil {
		t.Fatalf("the denied command ran\n%s", out)
	}
	dec := findDecision(t, logOf(t, data), true)
	if dec["decision"] != "deny" || dec["rule"] == "" {
		t.Fatalf("deny not recorded with its rule: %v", dec)
	}
	if !toolResultsMention(r.model, dec["rule"].(string)) {
		t.Fatalf("the model did not receive the reason; tool results: %v", r.model.Requests())
	}

	// A file tool writing outside the workspace (into an agent's config) is
	// judged like the shell.
	evil2 := filepath.Join(dir, "c", "home", ".claude", "settings.json")
	r = newOpenCodeRun(t, filepath.Join(dir, "c"), openai.ToolOnce("write", map[string]any{"filePath": evil2, "content": "pwned"}))
	r.use(d)
	out = r.run(t, "write a file outside")
	if _, err := os.Stat(evil2); err == nil {
		t.Fatalf("the denied write ran\n%s", out)
	}
	if dec := findDecision(t, logOf(t, data), true); dec["decision"] != "deny" || dec["tool"] != "write" {
		t.Fatalf("write outside the workspace: %v", dec)
	}
	d.stop()
}

func TestOpenCodeAskApprovedAndExpired(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	d := startDaemon(t, data, "--approval-timeout", "90s")
	cmd := "git reset --hard; touch approved.txt"
	r := newOpenCodeRun(t, filepath.Join(dir, "a"), openai.ToolOnce("bash", map[string]any{"command": cmd, "description": "reset"}))
	r.use(d)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	approved := make(chan string, 1)
	go func() {
		// the approval OpenCode's call waits for, as the log announces it
		asked, ok, _, err := findEvent(ctx, data, 0, approvalAsked(nil))
		if !ok {
			approved <- fmt.Sprintf("no approval asked: %v", err)
			return
		}
		d, err := event.DataOf[event.ApprovalData](asked)
		if err != nil {
			approved <- fmt.Sprintf("approval.requested %s: %v", asked.Data, err)
			return
		}
		o, e, code := warden(t, data, "", "approve", d.ApprovalID)
		approved <- fmt.Sprintf("%d %s %s", code, o, e)
	}()
	out := r.run(t, "reset it")
	select {
	case res := <-approved:
		if !strings.HasPrefix(res, "0 ") {
			t.Fatalf("warden approve: %s", res)
		}
	default:
		t.Fatalf("no approval was ever pending\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(r.proj, "approved.txt")); err != nil {
		t.Fatalf("the approved command did not run\n%s", out)
	}
	d.stop()

	// Left past the deadline: blocked.
	d = startDaemon(t, data, "--approval-timeout", "2s")
	r = newOpenCodeRun(t, filepath.Join(dir, "b"), openai.ToolOnce("bash", map[string]any{"command": cmd, "description": "reset"}))
	r.use(d)
	out = r.run(t, "reset it")
	if _, err := os.Stat(filepath.Join(r.proj, "approved.txt")); err == nil {
		t.Fatalf("a call nobody approved ran\n%s", out)
	}
	evs := logOf(t, data)
	var expired bool
	for _, e := range evs {
		if e.Type == "approval.resolved" && strings.Contains(string(e.Data), `"outcome":"expired"`) {
			expired = true
		}
	}
	if !expired {
		t.Fatal("no expired approval in the log")
	}
	d.stop()
}

func TestOpenCodeWardenDownBlocks(t *testing.T) {
	dir := t.TempDir()
	r := newOpenCodeRun(t, filepath.Join(dir, "a"), openai.ToolOnce("bash", map[string]any{"command": "touch made.txt", "description": "make a file"}))
	r.monitorURL = "http://127.0.0.1:9/agent-monitor" // nothing listens there
	out := r.run(t, "make a file")
	if _, err := os.Stat(filepath.Join(r.proj, "made.txt")); err == nil {
		t.Fatalf("a call ran while warden was unreachable\n%s", out)
	}
	if !toolResultsMention(r.model, "unreachable") {
		t.Fatalf("the model was not told warden is unreachable: %v", r.model.Requests())
	}
}
