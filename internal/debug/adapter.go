package debug

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// adapter is a running debug adapter and the DAP stream to it.
type adapter struct {
	name string
	cmd  *exec.Cmd // nil when connected to a server we did not start
	r    io.Reader
	w    io.Writer

	mu      sync.Mutex
	closers []io.Closer
	closed  bool

	exited  chan struct{} // closed once cmd.Wait returned; nil without cmd
	waitErr error         // cmd.Wait's result, readable after exited
}

// addCloser registers c to be closed by closeTransport (at once if that
// already happened).
func (a *adapter) addCloser(c io.Closer) {
	a.mu.Lock()
	closed := a.closed
	if !closed {
		a.closers = append(a.closers, c)
	}
	a.mu.Unlock()
	if closed {
		_ = c.Close()
	}
}

// closeTransport closes the DAP stream, which ends the session's reader.
func (a *adapter) closeTransport() {
	a.mu.Lock()
	cs := a.closers
	a.closers, a.closed = nil, true
	a.mu.Unlock()
	for _, c := range cs {
		_ = c.Close()
	}
}

// kill kills the adapter's process group (the adapter and what it started
// that stayed in its group).
func (a *adapter) kill() {
	if a.cmd == nil || a.cmd.Process == nil {
		return
	}
	killGroup(a.cmd.Process)
}

// startProcess starts cmd in its own process group and reaps it in the
// background; the transport is closed when it exits.
func (a *adapter) startProcess(cmd *exec.Cmd) error {
	setProcessGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return err
	}
	a.cmd = cmd
	a.exited = make(chan struct{})
	go func() {
		err := cmd.Wait()
		a.waitErr = err
		close(a.exited)
		a.closeTransport()
	}()
	return nil
}

// shutdown closes the transport and kills the adapter if it has not exited
// within grace, then waits until it has been reaped.
func (a *adapter) shutdown(grace time.Duration) {
	a.closeTransport()
	if a.exited == nil {
		return
	}
	if grace > 0 {
		t := time.NewTimer(grace)
		select {
		case <-a.exited:
		case <-t.C:
		}
		t.Stop()
	}
	// Kill the group even when the leader has exited: it may have left
	// the debuggee behind.
	a.kill()
	<-a.exited
}

// exitStatus describes how the adapter process ended ("" if unknown).
func (a *adapter) exitStatus() string {
	if a.exited == nil {
		return ""
	}
	select {
	case <-a.exited:
		if a.waitErr != nil {
			return a.waitErr.Error()
		}
		return "exit status 0"
	default:
		return ""
	}
}

// lineWriter is an io.Writer that splits what an adapter prints into lines
// and hands each to fn.
type lineWriter struct {
	buf []byte
	fn  func(line string)
}

// Write buffers p and passes on every complete line.
func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.fn(strings.TrimRight(string(w.buf[:i]), "\r"))
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > 64<<10 { // no newline in sight: flush
		w.fn(string(w.buf))
		w.buf = nil
	}
	return len(p), nil
}

func logLines(log *slog.Logger, what string) *lineWriter {
	return &lineWriter{fn: func(line string) {
		if line != "" {
			log.Debug("debug: adapter "+what, "line", line)
		}
	}}
}

func (m *Manager) adapterEnviron() []string {
	return append(os.Environ(), m.adapterEnv...)
}

// startAdapter starts (or connects to) the adapter for a session.
func (m *Manager) startAdapter(ctx context.Context, typ, request string, cfg Config) (*adapter, error) {
	switch typ {
	case typeGo:
		if request == "attach" && cfg.ProcessID <= 0 {
			return m.dial(ctx, "dlv", hostPort(cfg))
		}
		dir := cfg.Cwd
		if request == "launch" {
			// delve runs "go build" in its working directory: use the
			// program's, so its module is found.
			dir = cfg.Program
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				dir = filepath.Dir(dir)
			}
		}
		return m.startDlv(ctx, dir)
	case typePython:
		if request == "attach" && cfg.ProcessID <= 0 {
			// debugpy.listen() runs an adapter that takes DAP clients on
			// that port: talk to it directly.
			return m.dial(ctx, "debugpy", hostPort(cfg))
		}
		dir := cfg.Cwd
		if dir == "" && request == "launch" {
			dir = filepath.Dir(cfg.Program)
		}
		return m.startDebugpy(dir)
	}
	return nil, fmt.Errorf("%w: %q", ErrUnsupportedType, typ)
}

func itoa(n int) string { return strconv.Itoa(n) }

func hostPort(cfg Config) string {
	host := cfg.Host
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, strconv.Itoa(cfg.Port))
}

// dial connects to a DAP server that is already running.
func (m *Manager) dial(ctx context.Context, name, addr string) (*adapter, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", addr, err)
	}
	a := &adapter{name: name, r: conn, w: conn}
	a.addCloser(conn)
	return a, nil
}

// startDlv runs "dlv dap --listen 127.0.0.1:0", waits for its "DAP server
// listening at" line and connects to it.
func (m *Manager) startDlv(ctx context.Context, dir string) (*adapter, error) {
	path, err := m.locate("dlv")
	if err != nil {
		return nil, fmt.Errorf("locate dlv: %w", err)
	}
	log := m.log.With("adapter", "dlv")
	addrc := make(chan string, 1)
	cmd, err := m.command(path, "dap", "--listen", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start dlv: %w", err)
	}
	cmd.Dir = dir
	cmd.Env = m.adapterEnviron()
	cmd.Stdin = nil
	cmd.Stdout = &lineWriter{fn: func(line string) {
		if _, addr, ok := strings.Cut(line, "listening at:"); ok {
			select {
			case addrc <- strings.TrimSpace(addr):
			default:
			}
			return
		}
		if line != "" {
			log.Debug("debug: adapter stdout", "line", line)
		}
	}}
	cmd.Stderr = logLines(log, "stderr")
	a := &adapter{name: "dlv"}
	if err := a.startProcess(cmd); err != nil {
		return nil, fmt.Errorf("run %s: %w", path, err)
	}
	fail := func(err error) (*adapter, error) {
		a.shutdown(0)
		return nil, err
	}
	t := time.NewTimer(m.startTO)
	defer t.Stop()
	var addr string
	select {
	case addr = <-addrc:
	case <-a.exited:
		return fail(fmt.Errorf("dlv exited before listening: %s", a.exitStatus()))
	case <-t.C:
		return fail(errors.New("dlv did not report its address in time"))
	case <-ctx.Done():
		return fail(ctx.Err())
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fail(fmt.Errorf("connect to dlv at %s: %w", addr, err))
	}
	a.r, a.w = conn, conn
	a.addCloser(conn)
	log.Debug("debug: connected to dlv", "addr", addr, "pid", cmd.Process.Pid)
	return a, nil
}

// startDebugpy runs "python -m debugpy.adapter", which speaks DAP on its
// stdin and stdout.
func (m *Manager) startDebugpy(dir string) (*adapter, error) {
	python := m.python
	if !filepath.IsAbs(python) {
		p, err := m.locate(python)
		if err != nil {
			return nil, fmt.Errorf("locate %s: %w", python, err)
		}
		python = p
	}
	log := m.log.With("adapter", "debugpy")
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		_ = inR.Close()
		_ = inW.Close()
		return nil, err
	}
	cmd, err := m.command(python, "-m", "debugpy.adapter")
	if err != nil {
		_ = inR.Close()
		_ = inW.Close()
		_ = outR.Close()
		_ = outW.Close()
		return nil, fmt.Errorf("start debugpy: %w", err)
	}
	cmd.Dir = dir
	cmd.Env = m.adapterEnviron()
	cmd.Stdin = inR
	cmd.Stdout = outW
	cmd.Stderr = logLines(log, "stderr")
	a := &adapter{name: "debugpy", r: outR, w: inW}
	a.addCloser(inW)
	a.addCloser(outR)
	err = a.startProcess(cmd)
	_ = inR.Close()
	_ = outW.Close()
	if err != nil {
		a.closeTransport()
		return nil, fmt.Errorf("run %s -m debugpy.adapter: %w", python, err)
	}
	log.Debug("debug: started debugpy adapter", "pid", cmd.Process.Pid)
	return a, nil
}

// requestArgs builds the launch or attach arguments for the adapter.
func (m *Manager) requestArgs(typ, request string, cfg Config) (json.RawMessage, error) {
	args := map[string]any{
		"type":    typ,
		"request": request,
		"name":    cfg.Name,
	}
	if args["name"] == "" {
		args["name"] = "warden"
	}
	if request == "launch" {
		args["program"] = cfg.Program
		args["args"] = append([]string{}, cfg.Args...)
		if cfg.Cwd != "" {
			args["cwd"] = cfg.Cwd
		} else if typ == typePython {
			args["cwd"] = filepath.Dir(cfg.Program)
		}
		if len(cfg.Env) > 0 {
			args["env"] = cfg.Env
		}
		if cfg.StopOnEntry {
			args["stopOnEntry"] = true
		}
	}
	switch typ {
	case typeGo:
		switch {
		case request == "launch":
			args["mode"] = "debug"
			args["outputMode"] = "remote" // program output as output events
		case cfg.ProcessID > 0:
			args["mode"] = "local"
			args["processId"] = cfg.ProcessID
		default:
			args["mode"] = "remote"
		}
	case typePython:
		args["type"] = "debugpy"
		args["justMyCode"] = true
		if request == "launch" {
			args["console"] = "internalConsole"
			args["python"] = m.python
		} else if cfg.ProcessID > 0 {
			args["processId"] = cfg.ProcessID
		}
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidArgument, err)
	}
	return b, nil
}
