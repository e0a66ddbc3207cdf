// Package sandbox confines the processes warden starts on an agent's behalf
// with the Linux kernel's Landlock LSM: the workspace, the temp dirs and the
// build caches are writable, the system and toolchains readable, and
// everything else (above all the home directory's secrets and warden's own
// data dir) unreachable; on Landlock ABI 6 and later the process can neither
// signal nor reach the abstract Unix sockets of processes outside.
//
// A Profile is built from the policy file's `sandbox:` section and the
// Machine (Build); Detect says what the running kernel enforces; Explain
// lists every path with its access and the reason.
//
// # How a process gets confined
//
// Landlock restricts the calling thread and what it executes next, and Go
// cannot run code between fork and exec. So warden re-executes itself: the
// child confines the thread it runs on (capabilities dropped, no new
// privileges, Landlock, a seccomp filter), then replaces itself with the
// command from that thread (Exec), whose exit status is therefore the
// caller's to see.
//
//   - `warden sandbox -w DIR -- CMD [ARGS...]` is that child for shells and
//     agents' hooks (ShellLine builds the line).
//   - Command returns an *exec.Cmd that runs the current executable in a
//     hidden child mode with the profile on its command line.
//
// Every program that calls Command must call MaybeRunChild first thing in
// main, and every test binary that does (directly or through a package it
// tests) must call it first thing in TestMain:
//
//	func TestMain(m *testing.M) {
//		sandbox.MaybeRunChild()
//		os.Exit(m.Run())
//	}
//
// MaybeRunChild returns at once in a normal start, and never returns in the
// child. A binary that forgets it fails the child loudly (exit status 2,
// "flag provided but not defined: -warden-sandbox-child") rather than
// running its own main.
package sandbox
