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
