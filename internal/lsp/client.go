package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/warden-dev/warden/internal/tailbuf"
)

// document is the Manager's copy of an open document, replayed to a
// restarted server.
type document struct {
	uri        protocol.DocumentURI
	languageID string
	version    int32
	text       string
}

// client owns the server process for one (root, server) pair: a supervisor
// goroutine starts it, restarts it after crashes and shuts it down.
type client struct {
	m    *Manager
	cfg  *ServerConfig
	bin  string
	root string
	log  *slog.Logger

	mu       sync.Mutex
	inst     *instance // initialized and serving; nil otherwise
	running  bool      // a supervisor goroutine is alive
	ready    chan struct{}
	lastErr  error // last start/crash error
	giveUp   error // set when the supervisor stopped after repeated failures
	restarts int
	docs     map[protocol.DocumentURI]*document
}

// instance is one server process with its connection.
type instance struct {
	cmd    *exec.Cmd
	conn   *conn
	stdin  io.Closer
	stderr *tailbuf.Buffer
	exited chan struct{} // closed after the process has been reaped
	err    error         // exit status; valid after exited is closed
}

func (i *instance) alive() bool {
	select {
	case <-i.conn.done:
		return false
	default:
		return true
	}
}

func (c *client) info() ServerInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	si := ServerInfo{Name: c.cfg.Name, Root: c.root, Restarts: c.restarts, OpenDocuments: len(c.docs)}
	if c.inst != nil && c.inst.alive() {
		si.Running = true
		si.PID = c.inst.cmd.Process.Pid
	}
	if c.lastErr != nil {
		si.LastError = c.lastErr.Error()
	}
	return si
}

// ensureRunningLocked starts the supervisor if it is not running. c.mu must
// be held.
func (c *client) ensureRunningLocked() {
	if c.running {
		return
	}
	select {
	case <-c.m.done:
		return
	default:
	}
	c.running = true
	c.giveUp = nil
	c.m.wg.Add(1)
	go c.supervise()
}

// get returns a live, initialized instance, starting the server if needed
// and waiting for it within ctx.
func (c *client) get(ctx context.Context) (*instance, error) {
	for {
		c.mu.Lock()
		if inst := c.inst; inst != nil && inst.alive() {
			c.mu.Unlock()
			return inst, nil
		}
		if c.giveUp != nil && !c.running {
			// Stopped after repeated failures: report once, then let the
			// next call try again.
			err := c.giveUp
			c.giveUp = nil
			c.mu.Unlock()
			return nil, err
		}
		c.ensureRunningLocked()
		ready := c.ready
		c.mu.Unlock()
		select {
		case <-ready:
		case <-ctx.Done():
			return nil, fmt.Errorf("lsp: waiting for %s: %w", c.cfg.Name, ctx.Err())
		case <-c.m.done:
			return nil, ErrClosed
		}
	}
}

// wakeLocked wakes every get waiting on c.ready. c.mu must be held.
func (c *client) wakeLocked() {
	close(c.ready)
	c.ready = make(chan struct{})
}

// supervise keeps one server process running until the Manager closes or
// the server fails MaxStartFailures times in a row.
func (c *client) supervise() {
	defer c.m.wg.Done()
	failures := 0
	backoff := 250 * time.Millisecond
	stop := func(err error) {
		c.mu.Lock()
		c.inst = nil
		c.running = false
		if err != nil {
			c.giveUp = err
			c.lastErr = err
		}
		c.wakeLocked()
		c.mu.Unlock()
	}
	for {
		inst, err := c.start()
		if err == nil {
			started := time.Now()
			select {
			case <-inst.exited:
				c.mu.Lock()
				c.inst = nil
				c.restarts++
				c.lastErr = fmt.Errorf("%w: %v; stderr: %s", ErrServerExited, inst.err, inst.stderr.String())
				err = c.lastErr
				c.mu.Unlock()
				c.log.Warn("lsp: server exited; restarting", "err", inst.err, "stderr", inst.stderr.String())
				if time.Since(started) > time.Minute {
					failures, backoff = 0, 250*time.Millisecond
				} else {
					failures++
				}
			case <-c.m.done:
				c.mu.Lock()
				c.inst = nil
				c.mu.Unlock()
				c.shutdown(inst)
				stop(nil)
				return
			}
		} else {
			select {
			case <-c.m.done:
				stop(nil)
				return
			default:
			}
			failures++
			c.mu.Lock()
			c.lastErr = err
			c.mu.Unlock()
			c.log.Warn("lsp: server start failed", "err", err, "attempt", failures)
		}
		if failures >= c.m.opts.MaxStartFailures {
			c.log.Error("lsp: giving up on server after repeated failures", "err", err)
			stop(fmt.Errorf("lsp: %s failed %d times: %w", c.cfg.Name, failures, err))
			return
		}
		if failures > 1 { // the first crash restarts at once
			select {
			case <-time.After(backoff):
			case <-c.m.done:
				stop(nil)
				return
			}
			backoff = min(backoff*2, 10*time.Second)
		}
	}
}

// start launches the process, runs the initialize handshake and publishes
// the instance, replaying didOpen for every open document.
func (c *client) start() (*instance, error) {
	ctx, cancel := context.WithTimeout(context.Background(), c.m.opts.StartTimeout)
	defer cancel()
	go func() {
		select {
		case <-c.m.done:
			cancel()
		case <-ctx.Done():
		}
	}()

	cmd := exec.Command(c.bin, c.cfg.Args...)
	cmd.Dir = c.root
	cmd.Env = append(append(os.Environ(), c.m.opts.Env...), c.cfg.Env...)
	cmd.WaitDelay = 2 * time.Second
	stderr := tailbuf.New(8 << 10)
	cmd.Stderr = stderr
	// Our own pipe rather than cmd.StdinPipe: an *os.File pipe supports
	// write deadlines, so a server that stops reading cannot block us.
	stdinR, stdin, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("lsp: %s: stdin pipe: %w", c.cfg.Name, err)
	}
	cmd.Stdin = stdinR
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		_ = stdinR.Close()
		_ = stdin.Close()
		return nil, fmt.Errorf("lsp: %s: stdout pipe: %w", c.cfg.Name, err)
	}
	err = cmd.Start()
	_ = stdinR.Close()
	if err != nil {
		_ = stdin.Close()
		return nil, fmt.Errorf("lsp: starting %s: %w", c.bin, err)
	}
	inst := &instance{cmd: cmd, stdin: stdin, stderr: stderr, exited: make(chan struct{})}
	inst.conn = newConn(stdout, stdin, c.log, c.handleServerRequest, c.handleNotification)
	inst.conn.stuck = func() {
		c.log.Error("lsp: server stopped reading its input; killing it", "pid", cmd.Process.Pid)
		_ = cmd.Process.Kill()
	}
	go func() {
		if err := inst.conn.run(); err != nil {
			c.log.Warn("lsp: connection failed; killing server", "err", err)
			_ = cmd.Process.Kill()
		}
		inst.err = cmd.Wait()
		_ = stdin.Close()
		close(inst.exited)
	}()
	c.log.Info("lsp: server started", "pid", cmd.Process.Pid, "bin", c.bin)

	// rootUri/rootPath are deprecated in favour of workspaceFolders, which
	// gopls and pyright both read.
	rootURI := URIFromPath(c.root)
	params := &protocol.InitializeParams{
		ProcessID:             int32(os.Getpid()),
		ClientInfo:            &protocol.ClientInfo{Name: "warden", Version: "0"},
		InitializationOptions: c.cfg.InitializationOptions,
		Capabilities:          clientCapabilities(),
		WorkspaceFolders:      []protocol.WorkspaceFolder{{URI: string(rootURI), Name: filepath.Base(c.root)}},
	}
	var res protocol.InitializeResult
	if err := inst.conn.Call(ctx, "initialize", params, &res); err != nil {
		c.kill(inst)
		return nil, fmt.Errorf("lsp: initializing %s: %w; stderr: %s", c.cfg.Name, err, stderr.String())
	}
	if err := inst.conn.Notify("initialized", &protocol.InitializedParams{}); err != nil {
		c.kill(inst)
		return nil, fmt.Errorf("lsp: initializing %s: %w", c.cfg.Name, err)
	}
	if c.cfg.Settings != nil {
		_ = inst.conn.Notify("workspace/didChangeConfiguration", &protocol.DidChangeConfigurationParams{Settings: c.cfg.Settings})
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range c.docs {
		if err := inst.conn.Notify("textDocument/didOpen", didOpenParams(d)); err != nil {
			c.log.Warn("lsp: replaying didOpen", "uri", d.uri, "err", err)
		}
	}
	c.inst = inst
	c.wakeLocked()
	return inst, nil
}

// kill ends a process that failed to initialize and waits for it.
func (c *client) kill(inst *instance) {
	_ = inst.cmd.Process.Kill()
	<-inst.exited
}

// shutdown asks the server to exit cleanly and kills it after
// ShutdownTimeout.
func (c *client) shutdown(inst *instance) {
	timeout := c.m.opts.ShutdownTimeout
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := inst.conn.Call(ctx, "shutdown", nil, nil); err != nil {
		c.log.Debug("lsp: shutdown request", "err", err)
	}
	_ = inst.conn.Notify("exit", nil)
	_ = inst.stdin.Close()
	select {
	case <-inst.exited:
	case <-ctx.Done():
		c.log.Warn("lsp: server did not exit; killing", "pid", inst.cmd.Process.Pid)
		_ = inst.cmd.Process.Kill()
		<-inst.exited
	}
	c.log.Info("lsp: server stopped", "pid", inst.cmd.Process.Pid)
}

func didOpenParams(d *document) *protocol.DidOpenTextDocumentParams {
	return &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: d.uri, LanguageID: protocol.LanguageIdentifier(d.languageID), Version: d.version, Text: d.text,
	}}
}

// notifyLocked sends a document notification to the running instance, if
// any. A server that has just died is not an error: the restart replays
// the documents. c.mu must be held (it orders document notifications).
func (c *client) notifyLocked(method string, params any) error {
	if c.inst == nil || !c.inst.alive() {
		c.ensureRunningLocked()
		return nil
	}
	if err := c.inst.conn.Notify(method, params); err != nil && !errors.Is(err, ErrServerExited) {
		return err
	}
	return nil
}

// clientCapabilities is what the Manager tells servers it supports.
func clientCapabilities() protocol.ClientCapabilities {
	markup := []protocol.MarkupKind{protocol.Markdown, protocol.PlainText}
	return protocol.ClientCapabilities{
		Workspace: &protocol.WorkspaceClientCapabilities{
			Configuration:    true,
			WorkspaceFolders: true,
		},
		TextDocument: &protocol.TextDocumentClientCapabilities{
			Synchronization: &protocol.TextDocumentSyncClientCapabilities{DidSave: true},
			Completion: &protocol.CompletionTextDocumentClientCapabilities{
				CompletionItem: &protocol.CompletionTextDocumentClientCapabilitiesItem{
					DocumentationFormat: markup,
					DeprecatedSupport:   true,
				},
				ContextSupport: true,
			},
			Hover:      &protocol.HoverTextDocumentClientCapabilities{ContentFormat: markup},
			Definition: &protocol.DefinitionTextDocumentClientCapabilities{},
			References: &protocol.ReferencesTextDocumentClientCapabilities{},
			DocumentSymbol: &protocol.DocumentSymbolClientCapabilities{
				HierarchicalDocumentSymbolSupport: true,
			},
			CodeAction: &protocol.CodeActionClientCapabilities{
				CodeActionLiteralSupport: &protocol.CodeActionClientCapabilitiesLiteralSupport{
					CodeActionKind: &protocol.CodeActionClientCapabilitiesKind{ValueSet: []protocol.CodeActionKind{
						protocol.CodeActionKind(""), protocol.QuickFix, protocol.Refactor, protocol.RefactorExtract,
						protocol.RefactorInline, protocol.RefactorRewrite, protocol.Source,
						protocol.SourceOrganizeImports,
					}},
				},
				IsPreferredSupport: true,
			},
			Formatting: &protocol.DocumentFormattingClientCapabilities{},
			PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{
				RelatedInformation: true,
				VersionSupport:     true,
			},
		},
	}
}
