package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/fakemodel"
	openaifake "github.com/warden-dev/warden/internal/fakemodel/openai"
)

// chatProc is a `warden chat` a test talks to line by line, as a person
// at the terminal would, reading what it prints as it comes.
type chatProc struct {
	t       *testing.T
	cmd     *exec.Cmd
	in      io.WriteCloser
	mu      sync.Mutex
	out     bytes.Buffer
	changed chan struct{}
	done    chan struct{}
}

func startChat(t *testing.T, data string, args ...string) *chatProc {
	t.Helper()
	cmd := exec.Command(binary, append(append([]string{"chat"}, args...), "--data-dir", data)...)
	cmd.Env = isolatedEnv(t, filepath.Join(filepath.Dir(data), "home"))
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &chatProc{t: t, cmd: cmd, in: in, changed: make(chan struct{}), done: make(chan struct{})}
	cmd.Stderr = &lockedBuffer{mu: &p.mu, b: &p.out}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.done)
		buf := make([]byte, 4096)
		for {
			n, err := out.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			close(p.changed)
			p.changed = make(chan struct{})
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		in.Close()
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-p.done
		}
		_ = cmd.Wait()
	})
	return p
}

type lockedBuffer struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (l *lockedBuffer) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(b)
}

func (p *chatProc) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("chat input %q: %v", line, err)
	}
}

// waitFor waits until the chat has printed n matches of re and returns the
// nth one's submatches.
func (p *chatProc) waitFor(re string, n int) []string {
	p.t.Helper()
	rx := regexp.MustCompile(re)
	timeout := time.After(30 * time.Second)
	for {
		p.mu.Lock()
		ms := rx.FindAllStringSubmatch(p.out.String(), -1)
		ch, out := p.changed, p.out.String()
		p.mu.Unlock()
		if len(ms) >= n {
			return ms[n-1]
		}
		select {
		case <-ch:
		case <-p.done:
			p.t.Fatalf("chat ended before printing %q (x%d):\n%s", re, n, out)
		case <-timeout:
			p.t.Fatalf("chat did not print %q (x%d):\n%s", re, n, out)
		}
	}
}

const askedRe = `approve\? y \(yes\) / n \(no\) / a \(always\) \[(ap_[0-9a-f]+)\]`

// TestChatApprovalAnsweredElsewhere: an approval the chat asked about and
// that the person answered from another terminal (warden approve) leaves
// the chat's queue, so the y typed at the next question answers that
// question, not the settled one.
func TestChatApprovalAnsweredElsewhere(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	wd := mkdirReal(t, filepath.Join(dir, "proj"))
	if out, err := exec.Command("git", "init", "-q", wd).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	fake := openaifake.New(openaifake.NewQueue(
		openaifake.Reply{Tool: "shell", Args: map[string]any{"command": "git clean -fdx"}},
		openaifake.Reply{Text: "first done"},
		openaifake.Reply{Tool: "shell", Args: map[string]any{"command": "git clean -fdx"}},
		openaifake.Reply{Text: "second done"},
	).Next)
	defer fake.Close()
	startDaemonIn(t, data, wd, []string{"OPENAI_BASE_URL=" + fake.URL + "/v1", "OPENAI_API_KEY=sk-test"}, "--approval-timeout", "1m")
	c := startChat(t, data, "-w", wd, "--model", "openai/fake-model")
	c.send("clean up")
	first := c.waitFor(askedRe, 1)[1]
	if out, errOut, code := warden(t, data, "", "approve", first); code != 0 {
		t.Fatalf("approve: %s %s", out, errOut)
	}
	c.waitFor(regexp.QuoteMeta(first)+` was answered elsewhere: approved`, 1)
	c.waitFor(`first done`, 1)
	c.waitFor(`\[end;`, 1)
	c.send("clean up again")
	second := c.waitFor(askedRe, 2)[1]
	if second == first {
		t.Fatalf("the same approval %s asked twice", first)
	}
	c.send("y")
	c.waitFor(`approved `+regexp.QuoteMeta(second), 1)
	c.waitFor(`second done`, 1)
}

// TestChatCompactAborts: /compact runs like a turn: the chat says so, the
// prompt stays live, and Ctrl-C aborts it while the model summarises
// (nothing is compacted, the chat goes on); the session then takes turns.
func TestChatCompactAborts(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	wd := mkdirReal(t, filepath.Join(dir, "proj"))
	gate := fakemodel.NewGate()
	fake := openaifake.New(openaifake.NewQueue(
		openaifake.Reply{Text: "one"},
		openaifake.Reply{Text: "two"},
		openaifake.Reply{Text: "## Goal\nnever finished", Hold: gate},
		openaifake.Reply{Text: "three"},
	).Next)
	defer fake.Close()
	defer gate.Release() // first: Close waits for the held request
	startDaemonIn(t, data, wd, []string{"OPENAI_BASE_URL=" + fake.URL + "/v1", "OPENAI_API_KEY=sk-test"})
	c := startChat(t, data, "-w", wd, "--model", "openai/fake-model")
	c.send("first")
	c.waitFor(`\[end;`, 1)
	c.send("second")
	c.waitFor(`\[end;`, 2)
	c.send("/compact")
	c.waitFor(`compacting\.\.\.`, 1)
	<-gate.Reached()
	if err := c.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	c.waitFor(`not compacted \(aborted\)`, 1)
	c.send("third")
	c.waitFor(`three`, 1)
	c.waitFor(`\[end;`, 3)
}

// TestChatSaysWhyNoModel: with a provider configured whose server does not
// answer, `warden chat` without --model says what the provider answered
// rather than that no model is configured.
func TestChatSaysWhyNoModel(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	wd := mkdirReal(t, filepath.Join(dir, "proj"))
	gone := openaifake.New(openaifake.NewQueue().Next)
	url := gone.URL
	gone.Close()
	startDaemonIn(t, data, wd, []string{"OPENAI_BASE_URL=" + url + "/v1", "OPENAI_API_KEY=sk-test"})
	out, errOut, code := warden(t, data, "hello\n", "chat", "-w", wd)
	if code == 0 || strings.Contains(errOut, "no model is configured") || !strings.Contains(errOut, "no provider listed a model") || !strings.Contains(errOut, "openai") {
		t.Fatalf("chat without a reachable provider: %d %q %q", code, out, errOut)
	}
}

// TestChatShowsTurnError: a turn the provider refuses shows the provider's
// reason, not only its stop reason; the chat goes on.
func TestChatShowsTurnError(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	wd := mkdirReal(t, filepath.Join(dir, "proj"))
	fake := openaifake.New(openaifake.NewQueue(
		openaifake.Reply{Error: &openaifake.Error{Status: 404, Type: "invalid_request_error", Code: "model_not_found", Message: "The model `no-such-model` does not exist"}},
		openaifake.Reply{Text: "back again"},
	).Next)
	defer fake.Close()
	startDaemonIn(t, data, wd, []string{"OPENAI_BASE_URL=" + fake.URL + "/v1", "OPENAI_API_KEY=sk-test"})
	c := startChat(t, data, "-w", wd, "--model", "openai/no-such-model")
	c.send("hello")
	c.waitFor(`\[error;`, 1)
	c.waitFor("error: .*does not exist", 1)
	c.send("again")
	c.waitFor("back again", 1)
	// piped input that ends mid-turn still shows how the turn ended
	out, errOut, code := warden(t, data, "hello\n", "chat", "-w", wd, "--model", "openai/no-such-model")
	if code != 0 || !strings.Contains(out, "error: ") {
		t.Fatalf("piped chat: %d %q %q", code, out, errOut)
	}
}
