package ops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/warden-dev/warden/internal/reaper"
)

// ExecKillGrace is how long a command's process group has, after SIGTERM,
// before Exec sends SIGKILL.
const ExecKillGrace = 2 * time.Second

// ExecOutputLimit caps the output Exec keeps (the head; the rest is
// counted, not kept).
const ExecOutputLimit = 64 << 10

// ExecResult is what a command run by Exec did.
type ExecResult struct {
	// Output is its standard output and error, interleaved, up to
	// ExecOutputLimit bytes.
	Output string `json:"output"`
	// Truncated says the output was longer than Output.
	Truncated bool `json:"truncated,omitempty"`
	// ExitCode is the command's exit status (-1 when a signal ended it).
	ExitCode int `json:"exitCode"`
}

// Exec runs the bash command line command in the workspace (cwd "" is the
// root), judged as a "bash" call of it, and returns its output once it has
// ended. The command runs in the workspace's kernel sandbox when the
// Service has a Launcher, with no input, in a process group of its own:
// when ctx ends, the whole group (grandchildren too) gets SIGTERM, then
// SIGKILL after ExecKillGrace, and once the command has exited whatever is
// left of its group is killed, so nothing it started outlives the call.
// The result is recorded (unless the caller records its own).
func (w *Workspace) Exec(ctx context.Context, c Caller, cwd, command string) (ExecResult, error) {
	if cwd == "" {
		cwd = w.root
	}
	p, err := w.Gate(ctx, c, cwd, "bash", map[string]any{"command": command}, true)
	if err != nil {
		return ExecResult{}, err
	}
	res, err := p.ws().exec(ctx, cwd, command)
	w.Record(ctx, c, "bash", err)
	return res, err
}

func (w *Workspace) exec(ctx context.Context, cwd, command string) (ExecResult, error) {
	if err := ctx.Err(); err != nil {
		return ExecResult{}, err
	}
	var cmd *exec.Cmd
	if l := w.svc.opts.Launcher; l != nil {
		// the group is ended below, not by the launcher's context
		c, err := l.Command(context.Background(), w.root, "/bin/bash", "-c", command)
		if err != nil {
			return ExecResult{}, fmt.Errorf("%w: %w", ErrCannotConfine, err)
		}
		cmd = c
	} else {
		cmd = exec.Command("/bin/bash", "-c", command)
	}
	cmd.Dir = cwd
	cmd.Env = terminalEnv(w.svc.opts.TerminalEnv)
	out := &capped{limit: ExecOutputLimit}
	cmd.Stdout, cmd.Stderr = out, out
	// Under a guard (see internal/reaper) what the command starts goes
	// with it, setsid'd grandchildren too, and with the daemon should it
	// die; without one, the group is ended here and the shell has
	// Pdeathsig.
	var guard *reaper.Guarded
	if exe := w.svc.opts.ExecGuard; exe != "" && reaper.Supported {
		g, err := reaper.Wrap(exe, cmd)
		if err != nil {
			return ExecResult{}, err
		}
		guard, cmd = g, g.Cmd
		defer guard.Release()
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	} else {
		cmd.SysProcAttr = execSysProcAttr()
	}
	// a grandchild that keeps the output open does not hold the call
	cmd.WaitDelay = time.Second
	err := cmd.Start()
	if guard != nil {
		guard.Started()
	}
	if err != nil {
		return ExecResult{}, fmt.Errorf("start %q: %w", command, err)
	}
	pgid := cmd.Process.Pid
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		t := time.NewTimer(ExecKillGrace)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			if guard != nil {
				// the guard kills and reaps everything, then exits
				guard.Release()
				return
			}
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
	})
	err = cmd.Wait()
	close(done)
	wg.Wait()
	// what the command left behind in its group goes with it
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	res := ExecResult{Output: out.String(), Truncated: out.dropped > 0, ExitCode: cmd.ProcessState.ExitCode()}
	if ctx.Err() != nil {
		return res, fmt.Errorf("command %q: %w", command, context.Cause(ctx))
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && !errors.Is(err, exec.ErrWaitDelay) {
		return res, fmt.Errorf("command %q: %w", command, err)
	}
	return res, nil
}

// capped keeps the first limit bytes written to it and counts the rest.
type capped struct {
	mu      sync.Mutex
	limit   int
	buf     bytes.Buffer
	dropped int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := c.limit - c.buf.Len()
	switch {
	case room >= len(p):
		c.buf.Write(p)
	case room > 0:
		c.buf.Write(p[:room])
		c.dropped += len(p) - room
	default:
		c.dropped += len(p)
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}
