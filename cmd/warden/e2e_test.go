package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/event"
)

// These tests build the real binary and drive it as a user would.

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "warden-e2e-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "warden")
	out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type daemon struct {
	t       testing.TB
	dataDir string
	cmd     *exec.Cmd
	monitor string
	hooks   string
	health  string
	control string
	mcp     string
	stderr  *logBuffer
	// exited is closed once the process ended; waitErr is then its
	// exit error
	exited  chan struct{}
	waitErr error
}

// logBuffer is a process's output (the daemon's stderr, a command's
// stdout, a terminal's screen): written by the process, read by the test,
// which can wait for what it shows, woken by each write. The zero value is
// ready to use.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	// changed is closed by the next write (nil: nobody waits)
	changed chan struct{}
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitUntil waits until cond holds for the whole output, testing it again
// at each write; done ends the wait early (the process exited), and so
// does limit, the bound of a run gone wrong: then it reports whether cond
// holds at the end.
func (b *logBuffer) waitUntil(done <-chan struct{}, limit time.Duration, cond func(out string) bool) bool {
	bound := time.NewTimer(limit)
	defer bound.Stop()
	for {
		b.mu.Lock()
		ok := cond(b.buf.String())
		if b.changed == nil {
			b.changed = make(chan struct{})
		}
		changed := b.changed
		b.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-changed:
		case <-done:
			return cond(b.String())
		case <-bound.C:
			return cond(b.String())
		}
	}
}

// waitCount waits (as waitUntil) until the output holds substr at least n
// times.
func (b *logBuffer) waitCount(substr string, n int, done <-chan struct{}, limit time.Duration) bool {
	return b.waitUntil(done, limit, func(out string) bool { return strings.Count(out, substr) >= n })
}

// env isolates HOME and XDG dirs per test.
func isolatedEnv(t testing.TB, home string) []string {
	env := []string{"HOME=" + home, "XDG_DATA_HOME=" + filepath.Join(home, ".local/share"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH")}
	return env
}

func startDaemon(t testing.TB, dataDir string, extra ...string) *daemon {
	t.Helper()
	return startDaemonIn(t, dataDir, "", nil, extra...)
}

// startDaemonIn starts the daemon in directory wd (the test's own when "")
// with env added to the isolated environment.
func startDaemonIn(t testing.TB, dataDir, wd string, env []string, extra ...string) *daemon {
	t.Helper()
	home := filepath.Join(filepath.Dir(dataDir), "home")
	os.MkdirAll(home, 0o700)
	args := append([]string{"serve", "--data-dir", dataDir, "--monitor-addr", "127.0.0.1:0", "--hooks-addr", "127.0.0.1:0", "--health-addr", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--mcp-addr", "127.0.0.1:0", "--agent-addr", "127.0.0.1:0"}, extra...)
	cmd := exec.Command(binary, args...)
	cmd.Env = append(isolatedEnv(t, home), env...)
	cmd.Dir = wd
	stderr := &logBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &daemon{t: t, dataDir: dataDir, cmd: cmd, stderr: stderr, exited: make(chan struct{})}
	go func() { d.waitErr = cmd.Wait(); close(d.exited) }()
	t.Cleanup(func() {
		d.cmd.Process.Kill()
		<-d.exited
	})
	// The daemon says it serves once every listener is bound and
	// daemon.json written.
	if !stderr.waitCount("warden is serving", 1, d.exited, 20*time.Second) {
		t.Fatalf("daemon did not start:\n%s", stderr.String())
	}
	var rt struct {
		PID       int               `json:"pid"`
		Listeners map[string]string `json:"listeners"`
	}
	b, err := os.ReadFile(filepath.Join(dataDir, "daemon.json"))
	if err != nil || json.Unmarshal(b, &rt) != nil || rt.PID != cmd.Process.Pid {
		t.Fatalf("daemon.json of a serving daemon (pid %d): %v %s", cmd.Process.Pid, err, b)
	}
	d.monitor, d.hooks, d.health, d.control = rt.Listeners["monitor"], rt.Listeners["hooks"], rt.Listeners["health"], rt.Listeners["control"]
	d.mcp = rt.Listeners["mcp"]
	return d
}

func (d *daemon) stop() {
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.exited:
		if d.waitErr != nil {
			d.t.Fatalf("daemon exited with %v:\n%s", d.waitErr, d.stderr)
		}
	case <-time.After(20 * time.Second):
		d.t.Fatalf("daemon did not stop on SIGTERM:\n%s", d.stderr)
	}
}

func (d *daemon) kill9() {
	d.cmd.Process.Kill()
	<-d.exited
}

var client = &http.Client{Timeout: 30 * time.Second}

func (d *daemon) post(t *testing.T, body string) (int, string) {
	t.Helper()
	resp, err := client.Post("http://"+d.monitor+"/agent-monitor", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	return resp.StatusCode, buf.String()
}

func warden(t *testing.T, dataDir string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary, append(args, "--data-dir", dataDir)...)
	cmd.Env = isolatedEnv(t, filepath.Join(filepath.Dir(dataDir), "home"))
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func preExecute(session, callID, command, dir string) string {
	b, _ := json.Marshal(map[string]any{
		"type": "tool.pre_execute", "timestamp": time.Now().UnixMilli(), "project": "proj",
		"directory": dir, "worktree": dir, "tool": "bash", "sessionID": session, "callID": callID,
		"args": map[string]any{"command": command}, "sessionStats": map[string]any{"toolCallCount": 1, "uniqueTools": 1, "duration": 10},
	})
	return string(b)
}

type ev struct {
	ID        int64           `json:"id"`
	Session   string          `json:"session"`
	Seq       int64           `json:"seq"`
	Time      time.Time       `json:"time"`
	Type      string          `json:"type"`
	Source    string          `json:"source"`
	Workspace string          `json:"workspace"`
	Data      json.RawMessage `json:"data"`
}

func parseEvents(t *testing.T, out string) []ev {
	t.Helper()
	var evs []ev
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var e ev
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("events --json line %q: %v", line, err)
		}
		evs = append(evs, e)
	}
	return evs
}

func TestServeMonitorAndCLI(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	d := startDaemon(t, data)

	// Health.
	resp, err := client.Get("http://" + d.health + "/health")
	if err != nil {
		t.Fatal(err)
	}
	var h map[string]string
	json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if h["status"] != "ok" || h["version"] == "" {
		t.Fatalf("health: %v", h)
	}
	// Token 0600.
	if fi, err := os.Stat(filepath.Join(data, "token")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}

	ws := filepath.Join(dir, "proj")
	os.MkdirAll(ws, 0o755)
	if code, body := d.post(t, `{"type":"session.started","timestamp":1,"project":"proj","directory":"`+ws+`","worktree":"`+ws+`","sessionID":"ses_1","startTime":1}`); code != 200 {
		t.Fatalf("session.started: %d %s", code, body)
	}
	if _, body := d.post(t, preExecute("ses_1", "c1", "rm -rf /important", ws)); !strings.Contains(body, `"block":true`) {
		t.Fatalf("rm -rf /important: %s", body)
	}
	if _, body := d.post(t, preExecute("ses_1", "c2", "ls -la", ws)); strings.TrimSpace(body) != `{"block":false}` {
		t.Fatalf("ls -la: %s", body)
	}
	d.post(t, `{"type":"tool.post_execute","timestamp":2,"project":"proj","directory":"`+ws+`","worktree":"`+ws+`","tool":"bash","sessionID":"ses_1","callID":"c2","title":"ls -la","outputLength":10,"hasMetadata":false}`)
	d.post(t, `{"type":"session.idle","timestamp":3,"project":"proj","directory":"`+ws+`","worktree":"`+ws+`","sessionID":"ses_1","finalStats":{"duration":3,"totalToolCalls":2,"uniqueTools":["bash"]}}`)

	out, errOut, code := warden(t, data, "", "sessions", "--json")
	if code != 0 {
		t.Fatalf("sessions: %d %s", code, errOut)
	}
	var sessions []map[string]any
	if err := json.Unmarshal([]byte(out), &sessions); err != nil || len(sessions) != 1 {
		t.Fatalf("sessions --json: %v %s", err, out)
	}
	s := sessions[0]
	if s["id"] != "ses_1" || s["status"] != "idle" || s["toolCallCount"] != float64(2) || s["uniqueToolCount"] != float64(1) || s["denied"] != float64(1) || s["workspace"] != ws || s["source"] != "opencode" {
		t.Fatalf("session: %v", s)
	}

	out, _, code = warden(t, data, "", "events", "--json")
	evs := parseEvents(t, out)
	if code != 0 || len(evs) != 7 {
		t.Fatalf("events: %d %d\n%s", code, len(evs), out)
	}
	for i, e := range evs {
		if e.Seq != int64(i+1) || e.Session != "ses_1" || e.Time.IsZero() || e.Source == "" || e.Workspace != ws || len(e.Data) == 0 {
			t.Fatalf("event %d: %+v", i, e)
		}
	}
	out, _, _ = warden(t, data, "", "events", "--session", "ses_1", "--since", "5", "--json")
	if evs := parseEvents(t, out); len(evs) != 2 || evs[0].Seq != 6 {
		t.Fatalf("--since 5: %s", out)
	}
	out, _, code = warden(t, data, "", "sessions", "show", "ses_1")
	if code != 0 || !strings.Contains(out, "ses_1") || !strings.Contains(out, "idle") {
		t.Fatalf("sessions show: %s", out)
	}
	// --follow streams what becomes durable after it started.
	follow := exec.Command(binary, "events", "--follow", "--json", "--since", "7", "--data-dir", data)
	follow.Env = isolatedEnv(t, filepath.Join(dir, "home"))
	pipe, _ := follow.StdoutPipe()
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 16)
	go func() {
		buf := make([]byte, 1<<16)
		var acc string
		for {
			n, err := pipe.Read(buf)
			acc += string(buf[:n])
			for {
				i := strings.IndexByte(acc, '\n')
				if i < 0 {
					break
				}
				lines <- acc[:i]
				acc = acc[i+1:]
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	d.post(t, `{"type":"session.error","timestamp":4,"project":"proj","directory":"`+ws+`","worktree":"`+ws+`","sessionID":"ses_1","error":"boom"}`)
	select {
	case line := <-lines:
		if e := parseEvents(t, line); len(e) != 1 || e[0].ID != 8 || e[0].Type != "session.error" {
			t.Fatalf("follow got %s", line)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("events --follow did not stream the new event")
	}
	follow.Process.Signal(os.Interrupt)
	follow.Wait()

	out, _, code = warden(t, data, "", "status", "--json")
	if code != 0 || !strings.Contains(out, `"lastEventId": 8`) {
		t.Fatalf("status: %s", out)
	}
	d.stop()
	if _, err := os.Stat(filepath.Join(data, "warden.sock")); !os.IsNotExist(err) {
		t.Fatal("socket left behind after graceful stop")
	}
	_, errOut, code = warden(t, data, "", "sessions")
	if code == 0 || !strings.Contains(errOut, "not running") || !strings.Contains(errOut, "warden serve") {
		t.Fatalf("sessions without daemon: %d %q", code, errOut)
	}
}

func TestApproveAndDenyFromTheCLI(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	d := startDaemon(t, data, "--approval-timeout", "1m")
	ws := filepath.Join(dir, "proj")
	for _, tc := range []struct {
		verb  string
		block bool
	}{{"approve", false}, {"deny", true}} {
		got := make(chan string, 1)
		go func() {
			_, body := d.post(t, preExecute("ses_a", "c-"+tc.verb, "git reset --hard HEAD~2", ws))
			got <- body
		}()
		asked := waitEvent(t, data, 0, 20*time.Second, "the approval of c-"+tc.verb, approvalAsked(func(e event.Event) bool {
			d, _ := event.DataOf[event.ApprovalData](e)
			return d.CallID == "c-"+tc.verb
		}))
		id := approvalOf(t, asked)
		if out, _, _ := warden(t, data, "", "approvals", "--json"); !strings.Contains(out, `"id": "`+id+`"`) {
			t.Fatalf("approval %s is not pending: %s", id, out)
		}
		out, _, _ := warden(t, data, "", "sessions", "show", "ses_a", "--json")
		if !strings.Contains(out, `"status": "waiting"`) {
			t.Fatalf("session while waiting: %s", out)
		}
		args := []string{tc.verb, id}
		if tc.verb == "deny" {
			args = append(args, "--reason", "not on a Friday")
		}
		if out, errOut, code := warden(t, data, "", args...); code != 0 {
			t.Fatalf("%s: %s %s", tc.verb, out, errOut)
		}
		body := <-got
		if strings.Contains(body, `"block":true`) != tc.block {
			t.Fatalf("%s: reply %s", tc.verb, body)
		}
		if tc.verb == "deny" && !strings.Contains(body, "not on a Friday") {
			t.Fatalf("deny reason not passed to the agent: %s", body)
		}
	}
	_, errOut, code := warden(t, data, "", "approve", "ap_nope")
	if code == 0 || !strings.Contains(errOut, "warden approvals") {
		t.Fatalf("unknown approval: %d %s", code, errOut)
	}
	d.stop()
}

func TestRefusesTakenPortAndSecondDaemon(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := t.TempDir()
	cmd := exec.Command(binary, "serve", "--data-dir", filepath.Join(dir, "a"), "--monitor-addr", ln.Addr().String(), "--hooks-addr=", "--health-addr=", "--control-addr=")
	cmd.Env = isolatedEnv(t, dir)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "already in use") || !strings.Contains(string(out), "--monitor-addr") {
		t.Fatalf("taken port: %v\n%s", err, out)
	}

	data := filepath.Join(dir, "b")
	d := startDaemon(t, data)
	cmd = exec.Command(binary, "serve", "--data-dir", data, "--monitor-addr", "127.0.0.1:0", "--hooks-addr=", "--health-addr=", "--control-addr=")
	cmd.Env = isolatedEnv(t, dir)
	out, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "already running") {
		t.Fatalf("second daemon: %v\n%s", err, out)
	}
	d.stop()
}

// TestKill9LosesNothingAcknowledged hammers the monitor door from many
// clients, kills the daemon with SIGKILL mid-stream, restarts it, and checks
// that every call whose reply was received is in the log, with dense seqs.
func TestKill9LosesNothingAcknowledged(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	ws := filepath.Join(dir, "proj")
	d := startDaemon(t, data)

	var mu sync.Mutex
	acked := map[string]bool{}
	loaded := make(chan struct{}) // closed at the 300th acknowledged call
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	tr := &http.Transport{MaxIdleConnsPerHost: 32}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000 && ctx.Err() == nil; i++ {
				callID := fmt.Sprintf("w%d-%d", w, i)
				req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+d.monitor+"/agent-monitor",
					strings.NewReader(preExecute(fmt.Sprintf("ses_%d", w%4), callID, "go test ./...", ws)))
				resp, err := hc.Do(req)
				if err != nil {
					return // the daemon is gone
				}
				var r struct {
					Block *bool `json:"block"`
				}
				err = json.NewDecoder(resp.Body).Decode(&r)
				resp.Body.Close()
				if err == nil && resp.StatusCode == 200 && r.Block != nil && !*r.Block {
					mu.Lock()
					acked[callID] = true
					if len(acked) == 300 {
						close(loaded)
					}
					mu.Unlock()
				}
			}
		}()
	}
	// Let load build up, then kill -9.
	select {
	case <-loaded:
	case <-ctx.Done():
		t.Fatal("no load reached the daemon")
	}
	d.kill9()
	wg.Wait()

	d = startDaemon(t, data)
	out, errOut, code := warden(t, data, "", "events", "--json")
	if code != 0 {
		t.Fatalf("events: %s", errOut)
	}
	evs := parseEvents(t, out)
	logged := map[string]bool{}
	seqs := map[string]int64{}
	for _, e := range evs {
		if seqs[e.Session]+1 != e.Seq {
			t.Fatalf("session %s: seq %d after %d (gap or duplicate)", e.Session, e.Seq, seqs[e.Session])
		}
		seqs[e.Session] = e.Seq
		if e.Type == "tool.decision" {
			var dd struct {
				CallID string `json:"callId"`
			}
			json.Unmarshal(e.Data, &dd)
			logged[dd.CallID] = true
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for id := range acked {
		if !logged[id] {
			t.Fatalf("call %s was acknowledged but is not in the log", id)
		}
	}
	t.Logf("%d acknowledged calls, %d events in the log after kill -9", len(acked), len(evs))
	d.stop()
}

func TestPolicyEvalNeedsNoDaemon(t *testing.T) {
	in := `{"tool":"bash","args":{"command":"rm -rf /"},"cwd":"/home/u/proj","workspace":"/home/u/proj"}
{"tool":"bash","args":{"command":"ls -la"},"cwd":"/home/u/proj","workspace":"/home/u/proj"}
{"tool":"write","args":{"filePath":"/etc/hosts"},"cwd":"/home/u/proj","workspace":"/home/u/proj"}
{"tool":"bash","args":{"command":"git reset --hard HEAD~1"},"cwd":"/home/u/proj","workspace":"/home/u/proj"}
`
	out, errOut, code := warden(t, filepath.Join(t.TempDir(), "none"), in, "policy", "eval")
	if code != 0 {
		t.Fatalf("eval: %d %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{"deny", "allow", "deny", "ask"}
	if len(lines) != len(want) {
		t.Fatalf("eval output: %s", out)
	}
	for i, line := range lines {
		var r struct{ Decision, Reason, Rule string }
		if err := json.Unmarshal([]byte(line), &r); err != nil || r.Decision != want[i] {
			t.Fatalf("line %d: %s (want %s)", i, line, want[i])
		}
		if r.Decision != "allow" && (r.Reason == "" || r.Rule == "") {
			t.Fatalf("line %d lacks reason or rule: %s", i, line)
		}
	}
	out, _, code = warden(t, filepath.Join(t.TempDir(), "none"), "{nope\n", "policy", "eval")
	if code == 0 || !strings.Contains(out, `"decision":"deny"`) {
		t.Fatalf("bad line: %d %s", code, out)
	}
}
