package cli

import (
	"bytes"
	"strings"
	"testing"
)

// --version and --help are flags of the root like the global ones: any
// order of them with --data-dir, --config or -v prints the version (or the
// help), never "unknown command".
func TestVersionAndHelpFlagsAmongGlobalFlags(t *testing.T) {
	dir := t.TempDir()
	version := readBuildInfo().String() + "\n"
	for _, c := range []struct {
		args []string
		want string // the whole stdout; "" for help
	}{
		{[]string{"--version"}, version},
		{[]string{"--data-dir", dir, "--version"}, version},
		{[]string{"--version", "--data-dir", dir}, version},
		{[]string{"--config", dir + "/none.yaml", "--version"}, version},
		{[]string{"--version", "--config", dir + "/none.yaml"}, version},
		{[]string{"-v", "--data-dir", dir, "--version"}, version},
		{[]string{"--version", "-v", "--data-dir=" + dir}, version},
		{[]string{"--data-dir", dir, "version"}, version},
		{[]string{"--help", "--data-dir", dir}, ""},
		{[]string{"--data-dir", dir, "--help"}, ""},
	} {
		var out, errOut bytes.Buffer
		code := Main(c.args, strings.NewReader(""), &out, &errOut)
		if code != 0 || errOut.Len() != 0 {
			t.Errorf("warden %s: exit %d, stderr %q", strings.Join(c.args, " "), code, errOut.String())
			continue
		}
		if c.want == "" {
			if !strings.Contains(out.String(), "Usage:") || !strings.Contains(out.String(), "warden serve") {
				t.Errorf("warden %s: no help:\n%s", strings.Join(c.args, " "), out.String())
			}
		} else if out.String() != c.want {
			t.Errorf("warden %s = %q, want %q", strings.Join(c.args, " "), out.String(), c.want)
		}
	}
}

// A mistake says where to look next: an unknown subcommand with nothing
// near lists what there is, an unknown flag names the nearest flags and
// the help of the command it was given to (not the root's).
func TestMistakesSayWhatToDoNext(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"policy", "nonsense"}, []string{`unknown command "nonsense"`, "warden policy has: check, default, eval, explain, revoke, rules, test", "Run 'warden policy --help'"}},
		{[]string{"workspace", "lst"}, []string{"Did you mean this?", "\tlist", "Run 'warden workspace --help'"}},
		{[]string{"agents", "--jsn"}, []string{"unknown flag: --jsn", "Did you mean this?\n\t--json", "Run 'warden agents --help'"}},
		{[]string{"events", "--tpe", "x"}, []string{"\t--type", "Run 'warden events --help'"}},
		{[]string{"install", "claude", "--zzzzzz"}, []string{"unknown flag: --zzzzzz", "Run 'warden install claude --help'"}},
		{[]string{"workspace", "meta", "ws", "color", "blue"}, []string{"accepts at most 2 arg(s), received 3", "Usage: warden workspace meta [KEY [VALUE]]", "Run 'warden workspace meta --help'"}},
		{[]string{"approve"}, []string{"needs an approval id", "Usage: warden approve ID"}},
	} {
		_, errOut, code := runCLI(t, c.args...)
		if code == 0 {
			t.Errorf("warden %s: exit 0", strings.Join(c.args, " "))
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("warden %s: stderr lacks %q:\n%s", strings.Join(c.args, " "), w, errOut)
			}
		}
		if strings.Contains(errOut, "Run 'warden --help'") {
			t.Errorf("warden %s points at the root's help:\n%s", strings.Join(c.args, " "), errOut)
		}
	}
}
