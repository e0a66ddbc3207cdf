package cli

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

func TestLaunchdAgentPlist(t *testing.T) {
	s := serviceSpec{goos: "darwin", home: "/Users/me", exe: "/Users/me/go/bin/warden", dataDir: "/Users/me/Library/warden & co", configFile: "/Users/me/.config/warden/config.yaml"}
	u, err := s.unit()
	if err != nil {
		t.Fatal(err)
	}
	if u.Path != "/Users/me/Library/LaunchAgents/dev.warden.serve.plist" {
		t.Fatalf("path %s", u.Path)
	}
	// Well-formed XML whose ProgramArguments are warden's command line.
	var doc struct {
		Dict struct {
			Inner []byte `xml:",innerxml"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal(u.Content, &doc); err != nil {
		t.Fatalf("plist is not XML: %v\n%s", err, u.Content)
	}
	d := xml.NewDecoder(bytes.NewReader(u.Content))
	var strs []string
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "string" {
			var v string
			if err := d.DecodeElement(&v, &se); err != nil {
				t.Fatal(err)
			}
			strs = append(strs, v)
		}
	}
	want := []string{"dev.warden.serve", s.exe, "--data-dir", s.dataDir, "--config", s.configFile, "serve", "/Users/me"}
	if strings.Join(strs[:len(want)], "|") != strings.Join(want, "|") {
		t.Fatalf("strings %q, want prefix %q", strs, want)
	}
	for _, k := range []string{"<key>RunAtLoad</key>\n\t<true/>", "<key>KeepAlive</key>", "<key>StandardErrorPath</key>"} {
		if !strings.Contains(string(u.Content), k) {
			t.Errorf("plist lacks %q", k)
		}
	}
	if !strings.Contains(u.Enable, "launchctl bootstrap gui/$(id -u) "+u.Path) {
		t.Errorf("enable %q", u.Enable)
	}
}

func TestSystemdUnitQuotes(t *testing.T) {
	s := serviceSpec{goos: "linux", home: "/home/me", configHome: "/home/me/cfg", exe: "/opt/my tools/warden", dataDir: "/home/me/100%/data"}
	u, err := s.unit()
	if err != nil {
		t.Fatal(err)
	}
	if u.Path != "/home/me/cfg/systemd/user/warden.service" {
		t.Fatalf("path %s", u.Path)
	}
	if want := "ExecStart=\"/opt/my tools/warden\" --data-dir /home/me/100%%/data serve\n"; !strings.Contains(string(u.Content), want) {
		t.Fatalf("unit lacks %q:\n%s", want, u.Content)
	}
	// systemctl --user reload warden is warden's SIGHUP reload
	if want := "ExecReload=/bin/kill -HUP $MAINPID\n"; !strings.Contains(string(u.Content), want) {
		t.Fatalf("unit lacks %q:\n%s", want, u.Content)
	}
	if _, err := (serviceSpec{goos: "plan9"}).unit(); err == nil {
		t.Fatal("plan9: want an error")
	}
}
