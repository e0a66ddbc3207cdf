package policy

import (
	"strings"
	"testing"
)

func TestSandboxSection(t *testing.T) {
	src := `version: 1
extends: default
sandbox:
  readWrite: ["~/.cache/bazel", "$WORKSPACE/../shared"]
  readOnly: [/srv/data]
  deny: ["~/work/secrets"]
  tempDirs: [/scratch]
  defaults: false
`
	p, err := Parse([]byte(src), Env{Home: "/home/u"})
	if err != nil {
		t.Fatal(err)
	}
	sb := p.Sandbox()
	if !sb.IsEnabled() || sb.UsesDefaults() || len(sb.ReadWrite) != 2 || sb.ReadOnly[0] != "/srv/data" || sb.Deny[0] != "~/work/secrets" || sb.TempDirs[0] != "/scratch" {
		t.Errorf("sandbox section: %+v", sb)
	}
	light, err := ParseSandbox([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(light.ReadWrite) != 2 || light.UsesDefaults() {
		t.Errorf("ParseSandbox: %+v", light)
	}

	def, err := Default(Env{Home: "/home/u"})
	if err != nil {
		t.Fatal(err)
	}
	if d := def.Sandbox(); !d.IsEnabled() || !d.UsesDefaults() || len(d.ReadWrite)+len(d.ReadOnly)+len(d.Deny) != 0 {
		t.Errorf("built-in policy's sandbox: %+v (want the defaults)", d)
	}
	off, err := ParseSandbox([]byte("rules: []\nsandbox: {enabled: false}\n"))
	if err != nil || off.IsEnabled() {
		t.Errorf("enabled: false: %+v, %v", off, err)
	}
	none, err := ParseSandbox([]byte("rules: []\n"))
	if err != nil || !none.IsEnabled() || !none.UsesDefaults() {
		t.Errorf("no section: %+v, %v", none, err)
	}
}

func TestSandboxSectionErrors(t *testing.T) {
	for _, src := range []string{
		"sandbox: {readWrite: [relative/dir]}\n",
		"sandbox: {readOnly: [\"\"]}\n",
		"sandbox: {deny: [\"$HOME/x\"]}\n",
		"sandbox: {readwrite: [/x]}\n", // a typo of readWrite
		"sandbox: [/x]\n",
		"sandbox: {enabled: maybe}\n",
	} {
		if _, err := ParseSandbox([]byte(src)); err == nil {
			t.Errorf("ParseSandbox(%q): no error", src)
		}
		if _, err := Parse([]byte("version: 1\nextends: default\n"+src), Env{Home: "/home/u"}); err == nil {
			t.Errorf("Parse(%q): no error", src)
		} else if !strings.Contains(err.Error(), "sandbox") && !strings.Contains(err.Error(), "readwrite") && !strings.Contains(err.Error(), "line") {
			t.Errorf("Parse(%q): the error does not point at the section: %v", src, err)
		}
	}
}

// FuzzParseSandbox: any input gives a valid section or an error, never a
// panic; a section it accepts validates.
func FuzzParseSandbox(f *testing.F) {
	for _, s := range []string{
		"sandbox: {readWrite: [~/.cache/x], readOnly: [/opt], deny: [~/s], tempDirs: [/t], enabled: true, defaults: false}\n",
		"rules: []\nsandbox:\n",
		"sandbox: {readWrite: [$WORKSPACE/../x]}\n",
		"sandbox: [1]\n",
		"- a\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseSandbox(data)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted an invalid section %+v: %v", c, err)
		}
	})
}
