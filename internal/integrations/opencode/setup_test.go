package opencode

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/integrations/agent"
	"github.com/warden-dev/warden/internal/integrations/configtmpl"
)

func writeExe(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestSetupInfoStatic(t *testing.T) {
	s := NewSetupInfo(SetupOptions{})
	if s.Type() != agent.OpenCode || s.Version() != "1.18.33" {
		t.Fatalf("Type %q Version %q", s.Type(), s.Version())
	}
}

func TestCandidates(t *testing.T) {
	tests := []struct {
		goos, goarch string
		want         []string
	}{
		{"linux", "amd64", []string{"opencode-ai/bin/opencode.exe", "opencode-linux-x64/bin/opencode", ".bin/opencode"}},
		{"linux", "arm64", []string{"opencode-ai/bin/opencode.exe", "opencode-linux-x64/bin/opencode", "opencode-linux-arm64/bin/opencode", ".bin/opencode"}},
		{"darwin", "arm64", []string{"opencode-ai/bin/opencode.exe", "opencode-linux-x64/bin/opencode", "opencode-darwin-arm64/bin/opencode", ".bin/opencode"}},
		{"windows", "amd64", []string{"opencode-ai/bin/opencode.exe", "opencode-linux-x64/bin/opencode", "opencode-windows-x64/bin/opencode.exe", ".bin/opencode"}},
		{"linux", "386", []string{"opencode-ai/bin/opencode.exe", "opencode-linux-x64/bin/opencode", ".bin/opencode"}},
		{"plan9", "amd64", []string{"opencode-ai/bin/opencode.exe", "opencode-linux-x64/bin/opencode", ".bin/opencode"}},
	}
	for _, tc := range tests {
		if got := candidates(tc.goos, tc.goarch); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("candidates(%s, %s) = %v, want %v", tc.goos, tc.goarch, got, tc.want)
		}
	}
	if got := NewSetupInfo(SetupOptions{}).Candidates(); !reflect.DeepEqual(got, candidates(runtime.GOOS, runtime.GOARCH)) {
		t.Errorf("Candidates() = %v", got)
	}
}

func TestBinary(t *testing.T) {
	root := t.TempDir()
	emptyPath := filepath.Join(root, "emptybin")
	if err := os.MkdirAll(emptyPath, 0o755); err != nil {
		t.Fatal(err)
	}
	// The real layout of `npm install opencode-ai`: the wrapper's bin
	// holds the native program, .bin links to it.
	npm := filepath.Join(root, "repo", ".cache", "agents", "node_modules")
	wrapper := filepath.Join(npm, "opencode-ai", "bin", "opencode.exe")
	writeExe(t, wrapper)
	writeExe(t, filepath.Join(npm, "opencode-linux-x64", "bin", "opencode"))
	// Only the platform package (postinstall did not run).
	npmPlatform := filepath.Join(root, "global", "node_modules")
	platform := filepath.Join(npmPlatform, "opencode-linux-x64", "bin", "opencode")
	writeExe(t, platform)
	pathDir := filepath.Join(root, "bin")
	onPath := filepath.Join(pathDir, "opencode")
	if runtime.GOOS == "windows" {
		onPath += ".exe"
	}
	writeExe(t, onPath)
	configured := filepath.Join(root, "custom", "oc")
	writeExe(t, configured)

	tests := []struct {
		name string
		opts SetupOptions
		want string
	}{
		{"configured", SetupOptions{Configured: configured, PathEnv: pathDir, NpmDirs: []string{npm}}, configured},
		{"PATH", SetupOptions{PathEnv: pathDir, NpmDirs: []string{npm}}, onPath},
		{"npm wrapper package", SetupOptions{PathEnv: emptyPath, NpmDirs: []string{npm}}, wrapper},
		{"npm platform package", SetupOptions{PathEnv: emptyPath, NpmDirs: []string{filepath.Join(root, "none"), npmPlatform}}, platform},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NewSetupInfo(tc.opts).Binary()
			if err != nil || got != tc.want {
				t.Fatalf("Binary = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	_, err := NewSetupInfo(SetupOptions{PathEnv: emptyPath, NpmDirs: []string{filepath.Join(root, "none")}}).Binary()
	if !errors.Is(err, agent.ErrNoBinary) || !strings.Contains(err.Error(), filepath.Join(root, "none", "opencode-ai", "bin", "opencode.exe")) {
		t.Fatalf("not found: %v", err)
	}
	_, err = NewSetupInfo(SetupOptions{Configured: filepath.Join(root, "missing"), PathEnv: pathDir}).Binary()
	if !errors.Is(err, agent.ErrNoBinary) {
		t.Fatalf("configured but missing must not fall back to PATH: %v", err)
	}
}

func TestBinaryURL(t *testing.T) {
	const base = "https://github.com/sst/opencode/releases/download/v1.18.33/"
	tests := []struct {
		goos, goarch, want string
	}{
		{"linux", "amd64", base + "opencode-linux-x64.tar.gz"},
		{"linux", "arm64", base + "opencode-linux-arm64.tar.gz"},
		{"darwin", "amd64", base + "opencode-darwin-x64.zip"},
		{"darwin", "arm64", base + "opencode-darwin-arm64.zip"},
		{"windows", "amd64", base + "opencode-windows-x64.zip"},
		{"windows", "arm64", base + "opencode-windows-arm64.zip"},
		{"linux", "x64", base + "opencode-linux-x64.tar.gz"},
		{"freebsd", "amd64", ""},
		{"linux", "386", ""},
		{"", "", ""},
	}
	s := NewSetupInfo(SetupOptions{})
	for _, tc := range tests {
		got, err := s.BinaryURL(tc.goos, tc.goarch)
		if tc.want == "" {
			if err == nil {
				t.Errorf("BinaryURL(%q, %q) = %q, want an error", tc.goos, tc.goarch, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("BinaryURL(%q, %q) = %q, %v; want %q", tc.goos, tc.goarch, got, err, tc.want)
		}
	}
}

type ocConfig struct {
	Schema string `json:"$schema"`
	MCP    map[string]struct {
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
		Enabled bool              `json:"enabled"`
	} `json:"mcp"`
}

func TestGenerateConfig(t *testing.T) {
	s := NewSetupInfo(SetupOptions{})
	for _, ws := range []string{"/home/u/proj", `/home/u/we"ird\path`, `C:\Users\u\proj`, "/tmp/ü ${X} \n"} {
		target := filepath.Join(t.TempDir(), "sub", "opencode.json")
		err := s.GenerateConfig(target, map[string]string{
			"WARDEN_MCP_PORT": "43210", "WARDEN_WORKSPACE_PATH": ws, "WARDEN_MCP_TOKEN": "tok\"en", "UNUSED": "x",
		})
		if err != nil {
			t.Fatalf("%q: %v", ws, err)
		}
		b, err := os.ReadFile(target)
		if err != nil {
			t.Fatal(err)
		}
		var c ocConfig
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("%q: invalid JSON %s: %v", ws, b, err)
		}
		w := c.MCP["warden"]
		if c.Schema != "https://opencode.ai/config.json" || len(c.MCP) != 1 || w.Type != "remote" || !w.Enabled ||
			w.URL != "http://127.0.0.1:43210/mcp" || w.Headers["X-Workspace-Path"] != ws ||
			w.Headers["Authorization"] != `Bearer tok"en` || len(w.Headers) != 2 {
			t.Fatalf("%q: config %+v", ws, c)
		}
		fi, err := os.Stat(target)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("mode %v, %v", fi.Mode(), err)
		}
	}
}

func TestGenerateConfigMissingWritesNothing(t *testing.T) {
	s := NewSetupInfo(SetupOptions{})
	dir := t.TempDir()
	target := filepath.Join(dir, "opencode.json")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := s.GenerateConfig(target, map[string]string{"WARDEN_MCP_PORT": "1", "WARDEN_WORKSPACE_PATH": "/w"})
	if !errors.Is(err, configtmpl.ErrMissing) || !strings.Contains(err.Error(), "WARDEN_MCP_TOKEN") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "old" {
		t.Fatalf("target changed: %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("files left: %v", entries)
	}
	if err := s.GenerateConfig(filepath.Join(target, "under-a-file"), map[string]string{
		"WARDEN_MCP_PORT": "1", "WARDEN_WORKSPACE_PATH": "/w", "WARDEN_MCP_TOKEN": "t",
	}); err == nil {
		t.Fatal("writing under a file must fail")
	}
}

func TestConfigTemplateShape(t *testing.T) {
	// The template itself, filled with plain values, is exactly the
	// config the spec gives.
	out, err := configtmpl.Render(configTemplate, map[string]string{"WARDEN_MCP_PORT": "1", "WARDEN_WORKSPACE_PATH": "/w", "WARDEN_MCP_TOKEN": "t"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"$schema":"https://opencode.ai/config.json","mcp":{"warden":{"type":"remote","url":"http://127.0.0.1:1/mcp","headers":{"X-Workspace-Path":"/w","Authorization":"Bearer t"},"enabled":true}}}`
	var a, b any
	if err := json.Unmarshal(out, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("got %s", out)
	}
}
