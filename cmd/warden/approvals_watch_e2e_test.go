package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A person watches the queue in a terminal and answers with one key; the
// bell rings and a desktop notification goes out when a call starts waiting.
func TestApprovalsWatchPromptsInATerminal(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	d := startDaemon(t, data, "--approval-timeout", "5m")
	ws := filepath.Join(dir, "proj")
	// notify-send as a desktop session has it: here it records what it was asked to show.
	bin := filepath.Join(dir, "bin")
	notes := filepath.Join(dir, "notes")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// each notification, once written, is announced on a FIFO the test reads
	fifo := filepath.Join(dir, "notified")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nprintf '%s|' \"$@\" >> " + notes + "\necho >> " + notes + "\necho >> " + fifo + "\n"
	if err := os.WriteFile(filepath.Join(bin, "notify-send"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ff, err := os.OpenFile(fifo, os.O_RDWR, 0) // read-write: no EOF between writers
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ff.Close() })
	notified := make(chan struct{}, 16)
	go func() {
		sc := bufio.NewScanner(ff)
		for sc.Scan() {
			notified <- struct{}{}
		}
	}()
	env := isolatedEnv(t, filepath.Join(dir, "home"))
	for i, e := range env {
		if strings.HasPrefix(e, "PATH=") {
			env[i] = "PATH=" + bin + ":" + strings.TrimPrefix(e, "PATH=")
		}
	}
	env = append(env, "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus")
	p := startPTY(t, dir, env, binary, "--data-dir", data, "approvals", "--watch")
	p.waitOutput(t, 10*time.Second, "nothing waits for you")

	ask := func(callID, cmd string) chan string {
		got := make(chan string, 1)
		go func() {
			_, body := d.post(t, preExecute("ses_w", callID, cmd, ws))
			got <- body
		}()
		return got
	}
	key := func(k string) {
		if _, err := p.tty.WriteString(k); err != nil {
			t.Fatal(err)
		}
	}

	// y approves the oldest waiting call.
	got := ask("c1", "git reset --hard HEAD~1")
	p.waitOutput(t, 10*time.Second, "\a", "git reset --hard HEAD~1", "[y] approve  [n] deny  [a] approve always", "left)")
	key("y")
	if body := <-got; strings.Contains(body, `"block":true`) {
		t.Fatalf("y did not approve: %s", body)
	}
	p.waitOutput(t, 10*time.Second, "approved ap_")

	// n denies.
	got = ask("c2", "git reset --hard HEAD~2")
	p.waitOutput(t, 10*time.Second, "git reset --hard HEAD~2", "[y] approve")
	key("n")
	if body := <-got; !strings.Contains(body, `"block":true`) || !strings.Contains(body, "denied by a person at the terminal") {
		t.Fatalf("n did not deny: %s", body)
	}
	p.waitOutput(t, 10*time.Second, "denied ap_")

	// a approves always: a standing rule.
	got = ask("c3", "git reset --hard HEAD~3")
	p.waitOutput(t, 10*time.Second, "git reset --hard HEAD~3", "[y] approve")
	key("a")
	if body := <-got; strings.Contains(body, `"block":true`) {
		t.Fatalf("a did not approve: %s", body)
	}
	p.waitOutput(t, 10*time.Second, "always (a standing rule")
	if out, _, _ := wardenAt(t, data, "", "policy", "rules"); !strings.Contains(out, "git reset --hard HEAD~3") {
		t.Fatalf("no standing rule after a: %s", out)
	}

	// Every waiting call was notified, with the time left and what to run.
	for i := range 3 {
		select {
		case <-notified:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of 3 notifications sent", i)
		}
	}
	b, err := os.ReadFile(notes)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "--app-name=warden|"); n != 3 || !strings.Contains(string(b), "|warden: bash waits for you|git reset --hard HEAD~1\n") ||
		!regexp.MustCompile(`\n\d+m\d+s left: warden approve ap_[0-9a-f]+\|`).Match(b) {
		t.Fatalf("%d notifications:\n%s", n, b)
	}

	// Ctrl-C ends it, and the terminal is given back.
	key("\x03")
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		t.Fatalf("Ctrl-C did not end the watch:\n%q", p.out.String())
	}
	d.stop()
}

// Without a terminal, --watch prints one line per change.
func TestApprovalsWatchWithoutATerminal(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	d := startDaemon(t, data, "--approval-timeout", "5m")
	cmd := exec.Command(binary, "--data-dir", data, "approvals", "--watch")
	cmd.Env = isolatedEnv(t, filepath.Join(dir, "home"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(out)
	// The watch is subscribed once `warden approvals` has something to show;
	// a call posted now is waited for through the log.
	evs := followEvents(t, data)
	got := make(chan string, 1)
	go func() {
		_, body := d.post(t, preExecute("ses_p", "c1", "git reset --hard HEAD~3", filepath.Join(dir, "proj")))
		got <- body
	}()
	id := approvalID(t, nextEvent(t, evs, "approval.requested"))
	var waiting string
	for lines.Scan() {
		if strings.HasPrefix(lines.Text(), "waiting") && strings.Contains(lines.Text(), id) {
			waiting = lines.Text()
			break
		}
	}
	if !strings.Contains(waiting, "git reset --hard HEAD~3") || !strings.Contains(waiting, "left; warden approve "+id) || strings.Contains(waiting, "\a") {
		t.Fatalf("waiting line %q", waiting)
	}
	if _, errOut, code := wardenAt(t, data, "", "deny", id); code != 0 {
		t.Fatal(errOut)
	}
	<-got
	for lines.Scan() {
		if strings.HasPrefix(lines.Text(), "resolved") {
			if !strings.Contains(lines.Text(), id+": denied by cli") {
				t.Fatalf("resolved line %q", lines.Text())
			}
			break
		}
	}
	d.stop()
}
