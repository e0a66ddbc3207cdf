package claudecode

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
	if s.Type() != agent.ClaudeCode || s.Version() != "2.1.197" {
		t.Fatalf("Type %q Version %q", s.Type(), s.Version())
	}
}

func TestSetupCandidates(t *testing.T) {
	const wrapper, linux, bin = "@anthropic-ai/claude-code/bin/claude.exe", "@anthropic-ai/claude-code-linux-x64/claude", ".bin/claude"
	tests := []struct {
		goos, goarch string
		want         []string
	}{
		{"linux", "amd64", []string{wrapper, linux, bin}},
		{"linux", "arm64", []string{wrapper, linux, "@anthropic-ai/claude-code-linux-arm64/claude", bin}},
		{"darwin", "arm64", []string{wrapper, linux, "@anthropic-ai/claude-code-darwin-arm64/claude", bin}},
		{"windows", "amd64", []string{wrapper, linux, "@anthropic-ai/claude-code-win32-x64/claude.exe", bin}},
		{"freebsd", "amd64", []string{wrapper, linux, bin}},
		{"linux", "riscv64", []string{wrapper, linux, bin}},
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

func TestSetupBinary(t *testing.T) {
	root := t.TempDir()
	emptyPath := filepath.Join(root, "emptybin")
	if err := os.MkdirAll(emptyPath, 0o755); err != nil {
		t.Fatal(err)
	}
	// The real layout of `npm install @anthropic-ai/claude-code`.
	npm := filepath.Join(root, "repo", ".cache", "agents", "node_modules")
	wrapper := filepath.Join(npm, "@anthropic-ai", "claude-code", "bin", "claude.exe")
	writeExe(t, wrapper)
	writeExe(t, filepath.Join(npm, "@anthropic-ai", "claude-code-linux-x64", "claude"))
	linkDir := filepath.Join(npm, ".bin")
	if err := os.MkdirAll(linkDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../@anthropic-ai/claude-code/bin/claude.exe", filepath.Join(linkDir, "claude")); err != nil {
		t.Fatal(err)
	}
	// Only the native package (postinstall did not run).
	npmNative := filepath.Join(root, "global", "node_modules")
	native := filepath.Join(npmNative, "@anthropic-ai", "claude-code-linux-x64", "claude")
	writeExe(t, native)
	// Only the .bin link.
	npmLink := filepath.Join(root, "link", "node_modules")
	writeExe(t, filepath.Join(root, "link", "real-claude"))
	if err := os.MkdirAll(filepath.Join(npmLink, ".bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../real-claude", filepath.Join(npmLink, ".bin", "claude")); err != nil {
		t.Fatal(err)
	}
	pathDir := filepath.Join(root, "bin")
	onPath := filepath.Join(pathDir, "claude")
	if runtime.GOOS == "windows" {
		onPath += ".exe"
	}
	writeExe(t, onPath)
	configured := filepath.Join(root, "custom", "claude-dev")
	writeExe(t, configured)

	tests := []struct {
		name string
		opts SetupOptions
		want string
	}{
		{"configured", SetupOptions{Configured: configured, PathEnv: pathDir, NpmDirs: []string{npm}}, configured},
		{"PATH", SetupOptions{PathEnv: pathDir, NpmDirs: []string{npm}}, onPath},
		{"npm wrapper package", SetupOptions{PathEnv: emptyPath, NpmDirs: []string{npm}}, wrapper},
		{"npm native package", SetupOptions{PathEnv: emptyPath, NpmDirs: []string{filepath.Join(root, "none"), npmNative}}, native},
		{"npm .bin link", SetupOptions{PathEnv: emptyPath, NpmDirs: []string{npmLink}}, filepath.Join(npmLink, ".bin", "claude")},
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
	if !errors.Is(err, agent.ErrNoBinary) || !strings.Contains(err.Error(), filepath.Join(root, "none", "@anthropic-ai", "claude-code", "bin", "claude.exe")) {
		t.Fatalf("not found: %v", err)
	}
	_, err = NewSetupInfo(SetupOptions{Configured: filepath.Join(root, "custom"), PathEnv: pathDir}).Binary()
	if !errors.Is(err, agent.ErrNoBinary) {
		t.Fatalf("a configured directory must not fall back to PATH: %v", err)
	}
}

func TestSetupBinaryURL(t *testing.T) {
	url := func(pkg string) string {
		return "https://registry.npmjs.org/@anthropic-ai/" + pkg + "/-/" + pkg + "-2.1.197.tgz"
	}
	tests := []struct {
		goos, goarch, want string
	}{
		{"linux", "amd64", url("claude-code-linux-x64")},
		{"linux", "arm64", url("claude-code-linux-arm64")},
		{"darwin", "amd64", url("claude-code-darwin-x64")},
		{"darwin", "arm64", url("claude-code-darwin-arm64")},
		{"windows", "amd64", url("claude-code-win32-x64")},
		{"windows", "arm64", url("claude-code-win32-arm64")},
		{"win32", "x64", url("claude-code-win32-x64")},
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

type mcpConfig struct {
	MCPServers map[string]struct {
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	} `json:"mcpServers"`
}

func TestSetupGenerateConfig(t *testing.T) {
	s := NewSetupInfo(SetupOptions{})
	for _, ws := range []string{"/home/u/proj", `/home/u/we"ird\path`, `C:\Users\u\proj`, "/tmp/ü ${X}\t"} {
		target := filepath.Join(t.TempDir(), "sub", "mcp.json")
		err := s.GenerateConfig(target, map[string]string{
			"WARDEN_MCP_PORT": "43210", "WARDEN_WORKSPACE_PATH": ws, "WARDEN_MCP_TOKEN": `t\ok`,
		})
		if err != nil {
			t.Fatalf("%q: %v", ws, err)
		}
		b, err := os.ReadFile(target)
		if err != nil {
			t.Fatal(err)
		}
		var c mcpConfig
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("%q: invalid JSON %s: %v", ws, b, err)
		}
		w := c.MCPServers["warden"]
		if len(c.MCPServers) != 1 || w.Type != "http" || w.URL != "http://127.0.0.1:43210/mcp" ||
			w.Headers["X-Workspace-Path"] != ws || w.Headers["Authorization"] != `Bearer t\ok` || len(w.Headers) != 2 {
			t.Fatalf("%q: config %+v", ws, c)
		}
		if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("mode %v, %v", fi.Mode(), err)
		}
	}
}

func TestSetupGenerateConfigMissingWritesNothing(t *testing.T) {
	s := NewSetupInfo(SetupOptions{})
	dir := t.TempDir()
	target := filepath.Join(dir, "mcp.json")
	err := s.GenerateConfig(target, map[string]string{"WARDEN_MCP_TOKEN": "t", "WARDEN_WORKSPACE_PATH": "/w"})
	if !errors.Is(err, configtmpl.ErrMissing) || !strings.Contains(err.Error(), "WARDEN_MCP_PORT") {
		t.Fatalf("err = %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("files written: %v", entries)
	}
}

func TestSetupTemplateShape(t *testing.T) {
	out, err := configtmpl.Render(mcpTemplate, map[string]string{"WARDEN_MCP_PORT": "1", "WARDEN_WORKSPACE_PATH": "/w", "WARDEN_MCP_TOKEN": "t"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"mcpServers":{"warden":{"type":"http","url":"http://127.0.0.1:1/mcp","headers":{"X-Workspace-Path":"/w","Authorization":"Bearer t"}}}}`
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
