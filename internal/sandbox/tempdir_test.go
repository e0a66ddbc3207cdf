package sandbox

import (
	"slices"
	"testing"
)

// When the temp dir a command would use is not granted (a home inside
// /tmp keeps /tmp closed), TMPDIR points at one that is.
func TestTempDirFollowsTheGrants(t *testing.T) {
	closed := &Profile{Grants: []Entry{
		{Path: "/work/ws", Access: ReadWrite, Why: "the workspace"},
		{Path: "/var/tmp", Access: ReadWrite, Why: "temp dir"},
	}}
	open := &Profile{Grants: []Entry{{Path: "/tmp", Access: ReadWrite, Why: "temp dir"}}}
	for _, tc := range []struct {
		p         *Profile
		env       []string
		want      string
		unchanged bool
	}{
		{p: closed, env: []string{"A=1"}, want: "TMPDIR=/var/tmp"},
		{p: closed, env: []string{"TMPDIR=/tmp", "B=2"}, want: "TMPDIR=/var/tmp"},
		{p: closed, env: []string{"TMPDIR=/work/ws/tmp"}, unchanged: true},
		{p: open, env: []string{"A=1"}, unchanged: true},
		{p: &Profile{}, env: []string{"A=1"}, unchanged: true},
	} {
		got := withTempDir(tc.p, tc.env)
		if tc.unchanged {
			if !slices.Equal(got, tc.env) {
				t.Errorf("%v with %v: %v, want unchanged", tc.env, tc.p.Grants, got)
			}
			continue
		}
		if !slices.Contains(got, tc.want) || len(got) < len(tc.env) {
			t.Errorf("%v with %v: %v, want %s", tc.env, tc.p.Grants, got, tc.want)
		}
		for _, kv := range got {
			if kv == "TMPDIR=/tmp" {
				t.Errorf("%v: TMPDIR=/tmp left in place", got)
			}
		}
	}
}

// The program that confines the next command must not be one a confined
// command can replace.
func TestCommandWithRefusesAReplaceableProgram(t *testing.T) {
	if !Detect().Enforced() {
		t.Fatal("no Landlock on this kernel")
	}
	ws := t.TempDir()
	p := &Profile{Workspace: ws, Grants: []Entry{{Path: ws, Access: ReadWrite, Why: "the workspace"}}}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := CommandWith(t.Context(), ws+"/bin/warden", p, []string{"true"}); err == nil {
		t.Fatal("a program inside the workspace was accepted as the confiner")
	}
	if _, err := CommandWith(t.Context(), "/usr/bin/env", p, []string{"true"}); err != nil {
		t.Fatalf("a program outside every writable grant: %v", err)
	}
}
