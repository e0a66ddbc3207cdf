package shell

import "testing"

// selfCases are the analysis of warden's own CLI, signals, sockets,
// walks over names and scripts written then run in the same line.
var selfCases = []testCase{
	{"warden approve ap_1 --always", []string{"tag warden.admin", "attr action=approve"}},
	{"warden workspace add /", []string{"tag warden.admin", "attr action=workspace add"}},
	{"warden policy explain -- rm -rf /", []string{"!tag warden.admin", "!delete"}},
	{"warden status --json", []string{"!tag warden.admin"}},
	{"warden sandbox -w . -- rm -rf ~", []string{"delete:r /home/u", "via rm warden sandbox"}},
	{"warden sandbox explain -w .", []string{"!tag warden.admin", "ncmd 1"}},
	{"warden --data-dir /tmp/w serve", []string{"!tag warden.admin", "write:r /tmp/w"}},
	{"go run ./cmd/warden approve x", []string{"tag warden.admin", "via warden go run"}},
	{"go run ./cmd/other approve x", []string{"!tag warden.admin", "exec ./cmd/other"}},
	{"go build -o /tmp/w ./cmd/warden && /tmp/w deny x", []string{"write /tmp/w", "attr action=deny"}},
	{"go install ./cmd/warden", []string{"write /home/u/go/bin/warden"}},
	{"cp ~/go/bin/warden /tmp/w && /tmp/w approve x", []string{"attr action=approve"}},
	{"cp /opt/bin/warden /tmp/ && /tmp/warden approve x", []string{"attr action=approve"}},
	{"mv ./bin/warden ./x; ./x deny y", []string{"attr action=deny"}},
	{"cp ./bin/other ./x; ./x deny y", []string{"!tag warden.admin"}},
	{"GOBIN=/opt/bin go install ./cmd/warden", []string{"write /opt/bin/warden"}},
	{"go install golang.org/x/tools/gopls@latest", []string{"!write"}},
	{"kill -9 1234", []string{"tag process.signal", "attr pid=1234"}},
	{"kill -s TERM -- -1", []string{"attr pid=-1"}},
	{"kill $(pgrep warden)", []string{"tag process.signal", "attr pid=?", "tag process.find", "attr process=warden"}},
	{"pkill -f 'warden serve'", []string{"tag process.signal", "attr match=full", "attr process=warden serve"}},
	{"killall -9 warden", []string{"attr match=exact", "attr process=warden"}},
	{"systemctl --user stop warden", []string{"tag process.signal", "attr match=unit"}},
	{"systemctl --user status warden", []string{"!tag process.signal"}},
	{"kill -l", []string{"!tag process.signal"}},
	{"curl --unix-socket /run/w.sock http://x/", []string{"read /run/w.sock", "net http://x/"}},
	{"nc -U /run/w.sock", []string{"read /run/w.sock", "!net"}},
	{"socat - UNIX-CONNECT:/run/w.sock", []string{"read /run/w.sock"}},
	{`python3 -c 'import socket; socket.socket(socket.AF_UNIX).connect("/run/w.sock")'`, []string{"read /run/w.sock"}},
	{`node -e 'require("http").get({socketPath: "/run/w.sock", path: "/x"})'`, []string{"read /run/w.sock"}},
	{"lsof /run/w.sock", []string{"read /run/w.sock"}},
	// the paths find prints, handed to xargs
	{"find ~/.x -name token | xargs cat", []string{"read:r /home/u/.x/token"}},
	{"find / -name '*.pem' | grep -v test | xargs -I{} cp {} /tmp/", []string{"read:r /", "write /tmp"}},
	{"find . -name '*.go' -exec true \\; | xargs cat", []string{"read ?"}},
	{"cat $(find ~/.x -name token)", []string{"read:r /home/u/.x/token"}},
	{"cat $(find ~/.x -name token | head -1)", []string{"read:r /home/u/.x/token"}},
	{"for f in $(find ~/.x -name token); do cat \"$f\"; done", []string{"read:r /home/u/.x/token"}},
	{"curl file:///etc/shadow", []string{"read /etc/shadow", "!net"}},
	{"curl https://x.example/a", []string{"net https://x.example/a", "!read"}},
	// a script written then run is judged by its content
	{"echo 'rm -rf ~' > /tmp/a.sh; bash /tmp/a.sh", []string{"delete:r /home/u"}},
	{"printf '#!/bin/sh\\nrm -rf ~\\n' > a.sh; chmod +x a.sh; ./a.sh", []string{"delete:r /home/u"}},
	{"cat > /tmp/a.py <<'EOF'\nimport shutil\nshutil.rmtree('/etc')\nEOF\npython3 /tmp/a.py", []string{"delete:r /etc"}},
	{"echo 'rm -rf ~' >| /tmp/a.sh; sh /tmp/a.sh", []string{"delete:r /home/u"}},
	{"echo 'rm -rf' > /tmp/a.sh; echo ' ~' >> /tmp/a.sh; bash /tmp/a.sh", []string{"!delete:r /home/u"}},
	{"echo -n 'rm -rf' > /tmp/a.sh; echo ' ~' >> /tmp/a.sh; bash /tmp/a.sh", []string{"delete:r /home/u"}},
	{"echo 'ls' > /tmp/a.sh; cp /tmp/x /tmp/a.sh; bash /tmp/a.sh", []string{"!delete"}},
	{"echo 'rm -rf ~' > /tmp/a.sh; echo ls > /tmp/a.sh; bash /tmp/a.sh", []string{"!delete"}},
	{"python3 - <<'EOF'\nimport shutil\nshutil.rmtree('/etc')\nEOF", []string{"delete:r /etc"}},
}

func TestAnalyzeSelf(t *testing.T) {
	for _, tc := range selfCases {
		t.Run(tc.in, func(t *testing.T) {
			a, err := Analyze(tc.in, testOpts)
			if err != nil {
				t.Fatalf("Analyze: %v", err)
			}
			for _, w := range tc.want {
				if msg := check(a, w); msg != "" {
					t.Errorf("%s: %s\n%s", w, msg, dump(a))
				}
			}
		})
	}
}
