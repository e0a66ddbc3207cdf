package shell

import "testing"

// TestHomeBuiltInCode: code that builds a path under home at run time
// (pathlib's Path.home() with joinpath or /, os.homedir() +, File.expand_path,
// perl's glob("~/…") and "$ENV{HOME}/…", open(join(…), "w")) and then
// reads, writes or deletes it is judged on that path; paths it cannot
// know add nothing for reads and are unknown for changes.
func TestHomeBuiltInCode(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`python3 -c 'import pathlib; pathlib.Path.home().joinpath(".profile").write_text("")'`, []string{"write /home/u/.profile"}},
		{`python3 -c 'from pathlib import Path; (Path.home() / ".config" / "app.ini").unlink()'`, []string{"delete /home/u/.config/app.ini"}},
		{`python3 -c 'from pathlib import Path; print(Path.home().joinpath(".aws", "credentials").read_text())'`, []string{"read /home/u/.aws/credentials"}},
		{`python3 -c 'import os; f=open(os.path.join(os.path.expanduser("~"), ".zshrc"), "a"); f.write("x")'`, []string{"write /home/u/.zshrc"}},
		{`python3 -c 'import sys; from pathlib import Path; Path.home().joinpath(sys.argv[1]).unlink()' x`, []string{"delete ?"}},
		{`node -e 'const fs=require("fs"); console.log(fs.readFileSync(require("os").homedir() + "/.npmrc", "utf8"))'`, []string{"read /home/u/.npmrc"}},
		{`ruby -e 'puts File.read(Dir.home + "/.netrc")'`, []string{"read /home/u/.netrc"}},
		{`perl -e 'unlink glob("~/.config/*.bak")'`, []string{"delete /home/u/.config/*.bak"}},
		{`perl -e 'unlink "$ENV{HOME}/.inputrc" or die'`, []string{"delete /home/u/.inputrc"}},
		// everyday code
		{`python3 -c 'from pathlib import Path; print(Path.home())'`, []string{"!read", "!write", "!delete"}},
		{`python3 -c 'from pathlib import Path; Path("out/report.txt").write_text("ok")'`, []string{"write /home/u/proj/out/report.txt"}},
		{`python3 -c 'import os; print(open(os.path.join(os.getcwd(), "setup.cfg")).read())'`, []string{"!read /home/u"}},
		{`perl -e 'print for glob("*.txt")'`, []string{"!delete"}},
	} {
		a, err := Analyze(c.in, testOpts)
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		for _, w := range c.want {
			if msg := check(a, w); msg != "" {
				t.Errorf("%s: %s: %s\n%s", c.in, w, msg, dump(a))
			}
		}
	}
}
