package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSecretStoresReached: a secret store is a directory as well as its
// files. A recursive copy or archive of a directory under home that holds
// one (a keyring dir, a browser profile, its parent) reads it, and so
// does a glob that can name one: expanded against the real home when its
// directory exists, matched pattern to pattern when it does not. Names
// only (ls, find -name), public keys and narrower trees are fine.
func TestSecretStoresReached(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	ws := filepath.Join(home, "work")
	for f, body := range map[string]string{
		".mozilla/firefox/k3x9.default-release/key4.db":     "k",
		".mozilla/firefox/k3x9.default-release/logins.json": "l",
		".mozilla/firefox/profiles.ini":                     "p",
		".config/chromium/Profile 1/Login Data":             "d",
		".local/share/keyrings/login.keyring":               "r",
		".config/nvim/init.lua":                             "n",
		".ssh/id_ed25519.pub":                               "pub",
		"work/src/main.go":                                  "package main",
	} {
		p := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Default(Env{Home: home, TempDirs: []string{filepath.Join(root, "tmp")}})
	if err != nil {
		t.Fatal(err)
	}
	sh := func(cmd string) Call {
		return Call{Tool: "bash", Args: map[string]any{"command": cmd}, Cwd: ws, Workspace: ws}
	}
	runCases(t, p, []decideCase{
		{call: sh("cp -a ~/.local/share/keyrings " + root + "/tmp/k"), want: Deny, rule: "secret-store-reach"},
		{call: sh("tar cjf " + root + "/tmp/p.tbz ~/.mozilla/firefox"), want: Deny},
		{call: sh("zip -qr " + root + "/tmp/m.zip ~/.mozilla"), want: Deny},
		{call: sh("base64 ~/.mozilla/firefox/*/logins.json"), want: Deny},
		{call: sh("sqlite3 ~/.config/chromium/*/'Login Data' .dump"), want: Deny},
		{call: sh("cat ~/.mozilla/firefox/*.default*/key4.db"), want: Deny},
		{call: sh("cp ~/.config/BraveSoftware/*/Default/Cookies ."), want: Deny}, // no such dir here: the pattern decides
		{call: sh("cat ~/.mozilla/firefox/profiles.ini"), want: Deny},
		// names only, public keys, narrower trees
		{call: sh("ls ~/.mozilla/firefox/*"), want: Allow},
		{call: sh("find ~/.local/share -name '*.desktop'"), want: Allow},
		{call: sh("cat ~/.ssh/*.pub"), want: Allow},
		{call: sh("cp -r ~/.config/nvim ./nvim-config"), want: Allow},
		{call: sh("cat ~/.config/nvim/*.lua"), want: Allow},
		{call: sh("tar czf " + root + "/tmp/src.tgz src"), want: Allow},
		{call: sh("cp -r . " + root + "/tmp/backup"), want: Allow},
	})
}

// TestGlobMeetsPattern: a glob and a path pattern meet when they can name
// a common path, segment by segment.
func TestGlobMeetsPattern(t *testing.T) {
	for _, c := range []struct {
		pat, glob string
		rec, want bool
	}{
		{"/h/.mozilla/firefox/**", "/h/.mozilla/firefox/*/key4.db", false, true},
		{"/h/.mozilla/firefox/**", "/h/.mozilla/*", true, true},
		{"/h/.mozilla/firefox/**", "/h/.mozilla/*", false, false},
		{"/h/.config/google-chrome/**", "/h/.config/*/Cookies", false, true},
		{"/h/.aws/credentials", "/h/.aws/c*", false, true},
		{"/h/.aws/credentials", "/h/.aws/config*", false, false},
		{"/h/.ssh/**", "/h/*/id_*", false, false}, // * does not match a leading dot
		{"/h/.kube/config*", "/h/.kube/config-*", false, true},
	} {
		pps, err := compilePath(c.pat, pathVars{})
		if err != nil || len(pps) != 1 {
			t.Fatalf("%s: %v", c.pat, err)
		}
		if got := pps[0].globMeets(splitPath(c.glob), c.rec); got != c.want {
			t.Errorf("globMeets(%s, %s, %v) = %v, want %v", c.pat, c.glob, c.rec, got, c.want)
		}
	}
}
