package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A new user's first commands: the version, a typo, a missing agent.

func TestVersionSaysModuleCommitAndDate(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	out, _, code := warden(t, data, "", "version")
	if code != 0 {
		t.Fatalf("warden version: exit %d", code)
	}
	re := regexp.MustCompile(`^warden \d+\.\d+\.\d+ \(module \S+, commit (devel|[0-9a-f]{12}(\+dirty)?), built (devel|\d{4}-\d\d-\d\dT\S+), go1\.\S+\)\n$`)
	if !re.MatchString(out) {
		t.Fatalf("warden version = %q, want %s", out, re)
	}
	flag, err := exec.Command(binary, "--version").Output()
	if err != nil || string(flag) != out {
		t.Fatalf("warden --version = %q (%v), want %q", flag, err, out)
	}
	js, _, code := warden(t, data, "", "version", "--json")
	for _, k := range []string{`"version"`, `"module"`, `"commit"`, `"date"`, `"go"`} {
		if code != 0 || !strings.Contains(js, k) {
			t.Fatalf("warden version --json = %q (exit %d), want key %s", js, code, k)
		}
	}
}

func TestUnknownSubcommandsSuggest(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	for _, c := range []struct {
		args    []string
		suggest string
	}{
		{[]string{"workspace", "lst"}, "list"},
		{[]string{"credentials", "lst"}, "list"},
		{[]string{"policy", "chek"}, "check"},
		{[]string{"sesions"}, "sessions"},
		{[]string{"policy", "nonsense"}, ""},
		{[]string{"completion", "bsh"}, "bash"},
		{[]string{"service", "instal"}, "install"},
	} {
		out, errOut, code := warden(t, data, "", c.args...)
		if code == 0 {
			t.Errorf("warden %v: exit 0, want non-zero (stdout %q)", c.args, out)
		}
		if !strings.Contains(errOut, "unknown command") || !strings.Contains(errOut, "--help' for usage") {
			t.Errorf("warden %v: stderr %q, want unknown command and where to look", c.args, errOut)
		}
		if c.suggest != "" && !strings.Contains(errOut, "Did you mean this?\n\t"+c.suggest) {
			t.Errorf("warden %v: stderr %q, want the suggestion %q", c.args, errOut, c.suggest)
		}
	}
	// A parent alone still shows its help.
	out, _, code := warden(t, data, "", "workspace")
	if code != 0 || !strings.Contains(out, "Available Commands") {
		t.Errorf("warden workspace: exit %d, %q", code, out)
	}
}

func TestRunNamesTheAgentsAndHowToInstallThem(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	run := func(args ...string) (string, int) {
		cmd := exec.Command(binary, args...)
		cmd.Env = append(isolatedEnv(t, home), "PATH="+filepath.Join(dir, "empty"))
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return string(out), code
	}
	out, code := run("run")
	if code == 0 || !strings.Contains(out, "opencode, claude-code") {
		t.Fatalf("warden run: exit %d, %q; want the agents listed", code, out)
	}
	out, code = run("run", "opencode")
	first, _, _ := strings.Cut(out, "\n")
	if code == 0 || !strings.Contains(first, "npm install -g opencode-ai@") || !strings.Contains(first, "-v lists") || strings.Contains(out, "searched:") {
		t.Fatalf("warden run opencode without opencode: exit %d, %q; want the install hint first and no search list", code, out)
	}
	out, code = run("-v", "run", "opencode")
	if code == 0 || !strings.Contains(out, "npm install -g opencode-ai@") || !strings.Contains(out, "searched:\n  "+filepath.Join(dir, "empty", "opencode")) {
		t.Fatalf("warden -v run opencode: exit %d, %q; want the places searched", code, out)
	}
}

func TestStopEndsTheDaemon(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	d := startDaemon(t, data)
	out, errOut, code := warden(t, data, "", "stop")
	if code != 0 || !strings.Contains(out, "stopped") {
		t.Fatalf("warden stop: exit %d, %q %q", code, out, errOut)
	}
	// stop returns only once the process has ended: the helper's Wait is
	// done or about to be
	<-d.exited
	if d.waitErr != nil {
		t.Fatalf("daemon exit: %v\n%s", d.waitErr, d.stderr)
	}
	if _, err := os.Stat(filepath.Join(data, "daemon.json")); !os.IsNotExist(err) {
		t.Fatalf("daemon.json still there after stop: %v", err)
	}
	_, errOut, code = warden(t, data, "", "stop")
	if code == 0 || !strings.Contains(errOut, "no warden daemon runs for data dir") || !strings.Contains(errOut, "warden serve") {
		t.Fatalf("second warden stop: exit %d, %q", code, errOut)
	}
}

func TestServiceInstallWritesASystemdUserUnit(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	home := filepath.Join(filepath.Dir(data), "home")
	out, errOut, code := warden(t, data, "", "service", "install")
	if code != 0 {
		t.Fatalf("service install: exit %d, %q", code, errOut)
	}
	unit := filepath.Join(home, ".config", "systemd", "user", "warden.service")
	b, err := os.ReadFile(unit)
	if err != nil {
		t.Fatalf("%v (stdout %q)", err, out)
	}
	for _, want := range []string{
		"[Service]\n", "ExecStart=" + binary + " --data-dir " + data + " serve\n",
		"WorkingDirectory=" + home + "\n", "Restart=on-failure\n", "[Install]\nWantedBy=default.target\n",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("unit lacks %q:\n%s", want, b)
		}
	}
	if !strings.Contains(out, unit) || !strings.Contains(out, "systemctl --user enable --now warden.service") {
		t.Errorf("install output %q: want the file and the command that switches it on", out)
	}
	out, _, code = warden(t, data, "", "service", "uninstall")
	if code != 0 || !strings.Contains(out, "removed "+unit) {
		t.Fatalf("service uninstall: exit %d, %q", code, out)
	}
	if _, err := os.Stat(unit); !os.IsNotExist(err) {
		t.Fatalf("unit still there: %v", err)
	}
	out, _, code = warden(t, data, "", "service", "uninstall")
	if code != 0 || !strings.Contains(out, "nothing to remove") {
		t.Fatalf("second uninstall: exit %d, %q", code, out)
	}
}

func TestControlMethodsListsTheDoor(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	out, _, code := warden(t, data, "", "control", "methods", "--json")
	var names []string
	if err := json.Unmarshal([]byte(out), &names); err != nil || code != 0 {
		t.Fatalf("control methods --json: %d %q %v", code, out, err)
	}
	for _, want := range []string{"fs.readFile", "state.getWorkspace", "editor.openFile", "git.status"} {
		if !slices.Contains(names, want) {
			t.Errorf("control methods lacks %s: %v", want, names)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("not sorted: %v", names)
	}
	table, errOut, code := warden(t, data, "", "control", "methods")
	if code != 0 || !strings.HasPrefix(table, "NAMESPACE") || strings.Count(table, "\n") != len(names)+1 || !strings.Contains(errOut, "warden control call METHOD") {
		t.Fatalf("control methods: %d %q %q", code, table, errOut)
	}
}

func TestPolicyCheckAndTestReportEverything(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte(`version: 1
rules:
  - id: reads
    effect: allow
    match:
      tools: [read]
  - id: no-effect
    match:
      tools: [bash]
  - id: typo
    effect: deny
    mach:
      tools: [write]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := warden(t, data, "", "policy", "check", bad)
	if code != 1 || !strings.Contains(out, bad+":line 7: rule 2 (\"no-effect\"): missing effect") ||
		!strings.Contains(out, bad+":line 12: rule 3 (\"typo\"): field mach not found") || !strings.Contains(errOut, "2 problem(s)") {
		t.Fatalf("policy check: exit %d\n%s\n%s", code, out, errOut)
	}
	js, _, _ := warden(t, data, "", "policy", "check", bad, "--json")
	if !strings.Contains(js, `"line": 7`) || !strings.Contains(js, `"rule": 2`) || !strings.Contains(js, `"ok": false`) {
		t.Fatalf("policy check --json: %s", js)
	}

	tests := filepath.Join(dir, "tests.yaml")
	if err := os.WriteFile(tests, []byte(`version: 1
extends: default
tests:
  - name: listing is fine
    command: ls -la
    expect: allow
  - name: this one is wrong
    command: rm -rf /
    expect: allow
`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = warden(t, data, "", "policy", "test", tests)
	if code != 1 || !regexp.MustCompile(`PASS\s+test 1 \(listing is fine\)`).MatchString(out) ||
		!regexp.MustCompile(`FAIL\s+test 2 \(this one is wrong\)\s+expected allow, got deny`).MatchString(out) || !strings.Contains(out, "1 of 2 tests passed") {
		t.Fatalf("policy test: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = warden(t, data, "", "policy", "check", tests)
	if code != 1 || !strings.Contains(out, tests+":line 7: test 2 (this one is wrong): expected allow, got deny") {
		t.Fatalf("policy check of a failing test: exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestAgentsStartWithoutTheProgramGivesTheHintFirst(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	ws := filepath.Join(dir, "proj")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	d := startDaemonIn(t, data, ws, []string{"PATH=" + filepath.Join(dir, "empty")})
	out, errOut, code := wardenAt(t, data, "", "agents", "start", "opencode", "-w", ws)
	if code == 0 || !strings.Contains(errOut, "opencode not found: install it with `npm install -g opencode-ai@") ||
		!strings.Contains(errOut, "places searched)") || strings.Contains(errOut, "searched:") {
		t.Fatalf("agents start without opencode: exit %d %q %q", code, out, errOut)
	}
	_, errOut, _ = wardenAt(t, data, "", "-v", "agents", "start", "opencode", "-w", ws)
	if !strings.Contains(errOut, "(searched: "+filepath.Join(dir, "empty", "opencode")) {
		t.Fatalf("with -v: %q", errOut)
	}
	d.stop()
}

// Shell completion offers what the daemon holds: session ids for
// `sessions show` and `events --session` (they fell back to file names),
// workspace names for `workspace remove`.
func TestCompletionOffersWhatTheDaemonHolds(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	ws := filepath.Join(dir, "fix-login")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	d := startDaemon(t, data)
	if _, body := d.post(t, preExecute("ses_complete", "c1", "ls", ws)); !strings.Contains(body, `"block":false`) {
		t.Fatalf("ls: %s", body)
	}
	if _, errOut, code := warden(t, data, "", "workspace", "add", ws); code != 0 {
		t.Fatalf("workspace add: %s", errOut)
	}
	complete := func(args ...string) string {
		t.Helper()
		// --data-dir goes first: __complete completes its last argument
		cmd := exec.Command(binary, append([]string{"--data-dir", data, "__complete"}, args...)...)
		cmd.Env = isolatedEnv(t, filepath.Join(dir, "home"))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("__complete %v: %v", args, err)
		}
		return string(out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sessions", "show", ""}, "ses_complete\topencode " + ws},
		{[]string{"events", "--session", ""}, "ses_complete\t"},
		{[]string{"workspace", "remove", ""}, "fix-login\t"},
	} {
		out := complete(c.args...)
		if !strings.Contains(out, c.want) || !strings.HasSuffix(strings.TrimSpace(out), ":4") { // 4: ShellCompDirectiveNoFileComp
			t.Errorf("completion of %q:\n%s\nwant %q and no file names", strings.Join(c.args, " "), out, c.want)
		}
	}
	if out := complete("sessions", "show", "ses_complete", ""); strings.Contains(out, "ses_complete") {
		t.Errorf("a second session id offered:\n%s", out)
	}
}

// A query the daemon refuses prints its error and no empty table; a
// --type that names no event type says so when nothing matches (a typo
// matched nothing, silently).
func TestEventsQueryMistakes(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	d := startDaemon(t, data)
	if _, body := d.post(t, preExecute("s1", "c1", "ls", t.TempDir())); !strings.Contains(body, `"block":false`) {
		t.Fatalf("ls: %s", body)
	}
	out, errOut, code := warden(t, data, "", "events", "--decision", "maybe")
	if code == 0 || out != "" || !strings.Contains(errOut, `"maybe"`) {
		t.Fatalf("--decision maybe: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	_, errOut, code = warden(t, data, "", "events", "--type", "tool.cal")
	if code != 0 || !strings.Contains(errOut, `no event type is called "tool.cal"`) || !strings.Contains(errOut, "tool.call") {
		t.Fatalf("--type tool.cal: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, _ = warden(t, data, "", "events", "--type", "tool.call", "--session", "nosuch"); strings.Contains(errOut, "no event type") {
		t.Fatalf("a known type called unknown: %q", errOut)
	}
}
