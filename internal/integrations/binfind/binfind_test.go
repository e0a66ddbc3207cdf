package binfind

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/integrations/agent"
)

// mkfile creates dir/rel with mode, and its parents.
func mkfile(t *testing.T, dir, rel string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil { // umask
		t.Fatal(err)
	}
	return p
}

func exe(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

func TestFind(t *testing.T) {
	root := t.TempDir()
	pathA := filepath.Join(root, "pathA")
	pathB := filepath.Join(root, "pathB")
	npm1 := filepath.Join(root, "npm1")
	npm2 := filepath.Join(root, "npm2")
	for _, d := range []string{pathA, pathB, npm1, npm2} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	inB := mkfile(t, pathB, exe("tool"), 0o755)
	npm1Second := mkfile(t, npm1, "pkg/bin/tool2", 0o755)
	npm2First := mkfile(t, npm2, "pkg-x/bin/tool2", 0o755)
	configured := mkfile(t, root, "conf/tool", 0o755)
	notExec := mkfile(t, root, "conf/plain", 0o644)
	mkfile(t, pathA, exe("tool3"), 0o644) // not executable: skipped
	inBTool3 := mkfile(t, pathB, exe("tool3"), 0o755)
	if err := os.MkdirAll(filepath.Join(pathA, exe("tool4")), 0o755); err != nil { // a directory: skipped
		t.Fatal(err)
	}
	link := filepath.Join(npm1, ".bin", "tool5")
	mkfile(t, npm1, "pkg/bin/tool5.exe", 0o755)
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../pkg/bin/tool5.exe", link); err != nil {
		t.Fatal(err)
	}
	path := pathA + string(filepath.ListSeparator) + string(filepath.ListSeparator) + pathB

	tests := []struct {
		name    string
		prog    string
		opts    Options
		want    string
		wantErr error
		errHas  []string
	}{
		{name: "configured wins over PATH", prog: "tool", opts: Options{Configured: configured, PathEnv: path}, want: configured},
		{name: "configured not executable", prog: "tool", opts: Options{Configured: notExec, PathEnv: path}, wantErr: ErrNotExecutable, errHas: []string{notExec}},
		{name: "configured missing", prog: "tool", opts: Options{Configured: filepath.Join(root, "nope"), PathEnv: path}, wantErr: os.ErrNotExist},
		{name: "configured directory", prog: "tool", opts: Options{Configured: root, PathEnv: path}, wantErr: ErrNotExecutable, errHas: []string{"directory"}},
		{name: "PATH second entry", prog: "tool", opts: Options{PathEnv: path}, want: inB},
		{name: "PATH before npm", prog: "tool", opts: Options{PathEnv: path, NpmDirs: []string{npm1}, Candidates: []string{"pkg/bin/tool2"}}, want: inB},
		{name: "PATH skips non-executable", prog: "tool3", opts: Options{PathEnv: path}, want: inBTool3},
		{name: "PATH skips directory", prog: "tool4", opts: Options{PathEnv: path}, wantErr: agent.ErrNoBinary},
		{name: "npm folder order before candidate order", prog: "tool2",
			opts: Options{PathEnv: path, NpmDirs: []string{npm1, npm2}, Candidates: []string{"pkg-x/bin/tool2", "pkg/bin/tool2"}}, want: npm1Second},
		{name: "npm second folder", prog: "tool2",
			opts: Options{PathEnv: path, NpmDirs: []string{filepath.Join(root, "missing"), npm2}, Candidates: []string{"pkg-x/bin/tool2"}}, want: npm2First},
		{name: "npm symlink followed", prog: "tool5", opts: Options{PathEnv: path, NpmDirs: []string{npm1}, Candidates: []string{".bin/tool5"}}, want: link},
		{name: "not found lists places", prog: "ghost",
			opts:    Options{PathEnv: path, NpmDirs: []string{npm1, npm2}, Candidates: []string{"ghost/bin/ghost"}},
			wantErr: agent.ErrNoBinary,
			errHas:  []string{filepath.Join(pathA, exe("ghost")), filepath.Join(pathB, exe("ghost")), filepath.Join(npm1, "ghost", "bin", "ghost"), filepath.Join(npm2, "ghost", "bin", "ghost")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Find(tc.prog, tc.opts)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("Find = %q, %v; want error %v", got, err, tc.wantErr)
				}
				if !errors.Is(err, agent.ErrNoBinary) {
					t.Fatalf("error %v does not wrap agent.ErrNoBinary", err)
				}
				for _, s := range tc.errHas {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not mention %q", err, s)
					}
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Find = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestFindEmptyPathEntryIsNotCwd(t *testing.T) {
	dir := t.TempDir()
	mkfile(t, dir, exe("here"), 0o755)
	t.Chdir(dir)
	_, err := Find("here", Options{PathEnv: string(filepath.ListSeparator)})
	if !errors.Is(err, agent.ErrNoBinary) {
		t.Fatalf("an empty PATH entry must not search the current directory: %v", err)
	}
}

func TestFindProcessPath(t *testing.T) {
	dir := t.TempDir()
	want := mkfile(t, dir, exe("fromenv"), 0o755)
	t.Setenv("PATH", dir)
	got, err := Find("fromenv", Options{})
	if err != nil || got != want {
		t.Fatalf("Find = %q, %v; want %q", got, err, want)
	}
}

func TestDefaultNpmDirs(t *testing.T) {
	got := DefaultNpmDirs("/repo", "/home/u")
	want := []string{
		filepath.Join("/repo", ".cache", "agents", "node_modules"),
		filepath.Join("/home/u", ".npm-global", "lib", "node_modules"),
		"/usr/local/lib/node_modules", "/usr/lib/node_modules",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("DefaultNpmDirs = %v, want %v", got, want)
	}
	if got := DefaultNpmDirs("", ""); len(got) != 2 {
		t.Fatalf("DefaultNpmDirs(\"\", \"\") = %v", got)
	}
}
