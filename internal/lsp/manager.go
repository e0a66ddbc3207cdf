package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Sentinel errors callers may need to tell apart (use errors.Is).
var (
	// ErrNoServer means no language server is configured for the
	// document's language.
	ErrNoServer = errors.New("lsp: no language server for this language")
	// ErrNotInstalled means a server is configured but its program could
	// not be found by Options.Locate.
	ErrNotInstalled = errors.New("lsp: language server program not found")
	// ErrClosed means the Manager has been closed.
	ErrClosed = errors.New("lsp: manager closed")
	// ErrNotOpen means the document was never opened with DidOpen (or was
	// closed).
	ErrNotOpen = errors.New("lsp: document not open")
	// ErrBadURI means a document URI is not a file URI.
	ErrBadURI = errors.New("lsp: not a file URI")
)

// Options configure a Manager. The zero value is usable.
type Options struct {
	// Logger receives the Manager's logs; nil discards them.
	Logger *slog.Logger
	// Servers is the server table; nil means DefaultServers().
	Servers []ServerConfig
	// Locate resolves a server's Command to an executable path; nil means
	// exec.LookPath.
	Locate func(name string) (string, error)
	// Root chooses the workspace root for a document path. Returning ""
	// (or leaving Root nil) falls back to the nearest enclosing directory
	// holding one of the server's RootMarkers, else the file's directory.
	Root func(path, languageID string) string
	// Env holds extra "KEY=value" entries for every server process, added
	// after os.Environ() and before ServerConfig.Env.
	Env []string
	// StartTimeout bounds process start plus the initialize handshake;
	// zero means 60s.
	StartTimeout time.Duration
	// ShutdownTimeout bounds the shutdown request and the wait for the
	// process to exit before it is killed; zero means 5s.
	ShutdownTimeout time.Duration
	// MaxStartFailures is how many consecutive failed starts (or crashes
	// within a minute of starting) are tolerated before the Manager stops
	// restarting a server until the next request; zero means 3.
	MaxStartFailures int
	// OnDiagnostics, when set, is called for every publishDiagnostics
	// notification after the cache is updated. It runs on the server's
	// read loop and must not block.
	OnDiagnostics func(uri protocol.DocumentURI, diags []protocol.Diagnostic)
}

// Manager runs language servers on demand and routes document
// notifications and requests to them. One server process runs per
// (workspace root, ServerConfig.Name); it starts on first use, is shared by
// all callers, is restarted when it exits unexpectedly (re-sending
// initialize and didOpen for every open document) and is shut down by
// Close. A Manager is safe for concurrent use.
type Manager struct {
	log     *slog.Logger
	opts    Options
	servers []ServerConfig
	byLang  map[string]*ServerConfig

	done      chan struct{} // closed by Close
	closeOnce sync.Once
	wg        sync.WaitGroup // supervisors

	mu      sync.Mutex
	closed  bool
	clients map[clientKey]*client
	docs    map[protocol.DocumentURI]*client // open documents

	diags diagCache
}

type clientKey struct{ root, server string }

// NewManager returns a Manager configured by opts. No server starts until
// a document is opened or a request is made.
func NewManager(opts Options) *Manager {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Locate == nil {
		opts.Locate = exec.LookPath
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 60 * time.Second
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = 5 * time.Second
	}
	if opts.MaxStartFailures <= 0 {
		opts.MaxStartFailures = 3
	}
	servers := opts.Servers
	if servers == nil {
		servers = DefaultServers()
	}
	m := &Manager{
		log:     log,
		opts:    opts,
		servers: append([]ServerConfig(nil), servers...),
		byLang:  make(map[string]*ServerConfig),
		done:    make(chan struct{}),
		clients: make(map[clientKey]*client),
		docs:    make(map[protocol.DocumentURI]*client),
	}
	m.diags.init()
	for i := range m.servers {
		for _, lang := range m.servers[i].Languages {
			if _, dup := m.byLang[lang]; !dup {
				m.byLang[lang] = &m.servers[i]
			}
		}
	}
	return m
}

// Close shuts every server down (shutdown request, exit notification, then
// kill after Options.ShutdownTimeout) and waits for them. Later calls on
// the Manager fail with ErrClosed. Close is idempotent.
func (m *Manager) Close() error {
	m.closeOnce.Do(func() {
		m.mu.Lock()
		m.closed = true
		m.mu.Unlock()
		close(m.done)
	})
	m.wg.Wait()
	return nil
}

// URIFromPath returns the file URI of a path (made absolute and cleaned).
func URIFromPath(path string) protocol.DocumentURI {
	return uri.File(filepath.Clean(path))
}

// PathFromURI returns the file-system path of a file URI.
func PathFromURI(u protocol.DocumentURI) (string, error) {
	p, err := url.Parse(string(u))
	if err != nil {
		return "", fmt.Errorf("%w: %q: %w", ErrBadURI, u, err)
	}
	if p.Scheme != "file" {
		return "", fmt.Errorf("%w: %q", ErrBadURI, u)
	}
	return filepath.FromSlash(p.Path), nil
}

// normURI gives one spelling to equal file URIs (servers and callers may
// escape differently), so caches and tables key consistently.
func normURI(u protocol.DocumentURI) protocol.DocumentURI {
	p, err := PathFromURI(u)
	if err != nil || p == "" {
		return u
	}
	return URIFromPath(p)
}

// ServerInfo describes one server the Manager runs (or ran).
type ServerInfo struct {
	// Name is the ServerConfig.Name.
	Name string `json:"name"`
	// Root is the workspace root directory.
	Root string `json:"root"`
	// PID is the current process id, 0 when not running.
	PID int `json:"pid,omitempty"`
	// Running reports whether an initialized process is serving requests.
	Running bool `json:"running"`
	// Restarts counts restarts after unexpected exits.
	Restarts int `json:"restarts"`
	// LastError is the most recent start or crash error, if any.
	LastError string `json:"lastError,omitempty"`
	// OpenDocuments counts documents open on this server.
	OpenDocuments int `json:"openDocuments"`
}

// Servers lists the servers the Manager knows of, sorted by root then
// name.
func (m *Manager) Servers() []ServerInfo {
	m.mu.Lock()
	cs := make([]*client, 0, len(m.clients))
	for _, c := range m.clients {
		cs = append(cs, c)
	}
	m.mu.Unlock()
	out := make([]ServerInfo, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.info())
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Root != out[j].Root {
			return out[i].Root < out[j].Root
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// clientFor returns (creating it) the client serving path in languageID.
func (m *Manager) clientFor(path, languageID string) (*client, error) {
	cfg, ok := m.byLang[languageID]
	if !ok {
		return nil, fmt.Errorf("%w: %q (%s)", ErrNoServer, languageID, path)
	}
	root := ""
	if m.opts.Root != nil {
		root = m.opts.Root(path, languageID)
	}
	if root == "" {
		root = findRoot(filepath.Dir(path), cfg.RootMarkers)
	}
	root = filepath.Clean(root)
	key := clientKey{root: root, server: cfg.Name}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	if c, ok := m.clients[key]; ok {
		return c, nil
	}
	bin, err := m.opts.Locate(cfg.Command)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrNotInstalled, cfg.Command, err)
	}
	c := &client{
		m:     m,
		cfg:   cfg,
		bin:   bin,
		root:  root,
		log:   m.log.With("server", cfg.Name, "root", root),
		docs:  make(map[protocol.DocumentURI]*document),
		ready: make(chan struct{}),
	}
	m.clients[key] = c
	return c, nil
}

// clientForURI returns the client of an open document, else the client its
// path and language map to.
func (m *Manager) clientForURI(u protocol.DocumentURI) (*client, protocol.DocumentURI, error) {
	u = normURI(u)
	m.mu.Lock()
	c, ok := m.docs[u]
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return nil, u, ErrClosed
	}
	if ok {
		return c, u, nil
	}
	path, err := PathFromURI(u)
	if err != nil {
		return nil, u, err
	}
	c, err = m.clientFor(path, LanguageID(path))
	return c, u, err
}

// findRoot walks up from dir to the first directory containing one of
// markers; without a match it returns dir.
func findRoot(dir string, markers []string) string {
	for d := dir; ; {
		for _, mk := range markers {
			if _, err := os.Stat(filepath.Join(d, mk)); err == nil {
				return d
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// settingsSection looks a dotted section up in settings.
func settingsSection(settings map[string]any, section string) any {
	if settings == nil {
		return nil
	}
	if section == "" {
		return settings
	}
	if v, ok := settings[section]; ok {
		return v
	}
	var cur any = settings
	for _, part := range strings.Split(section, ".") {
		mp, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur, ok = mp[part]
		if !ok {
			return nil
		}
	}
	return cur
}

// handleServerRequest answers server-to-client requests so servers never
// stall waiting for the client.
func (c *client) handleServerRequest(method string, params json.RawMessage) (any, error) {
	switch method {
	case "workspace/configuration":
		var p protocol.ConfigurationParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &RPCError{Code: -32602, Message: err.Error()}
		}
		out := make([]any, len(p.Items))
		for i, it := range p.Items {
			out[i] = settingsSection(c.cfg.Settings, it.Section)
		}
		return out, nil
	case "workspace/workspaceFolders":
		return []protocol.WorkspaceFolder{{URI: string(URIFromPath(c.root)), Name: filepath.Base(c.root)}}, nil
	case "workspace/applyEdit":
		return protocol.ApplyWorkspaceEditResponse{Applied: false, FailureReason: "edits are not applied by the warden LSP manager"}, nil
	case "window/showMessageRequest", "window/showDocument":
		return nil, nil
	case "client/registerCapability", "client/unregisterCapability",
		"window/workDoneProgress/create",
		"workspace/semanticTokens/refresh", "workspace/codeLens/refresh",
		"workspace/inlayHint/refresh", "workspace/inlineValue/refresh",
		"workspace/diagnostic/refresh", "workspace/foldingRange/refresh":
		return nil, nil
	}
	c.log.Debug("lsp: unhandled server request", "method", method)
	return nil, &RPCError{Code: codeMethodNotFound, Message: "method not found: " + method}
}

// handleNotification routes server notifications.
func (c *client) handleNotification(method string, params json.RawMessage) {
	switch method {
	case "textDocument/publishDiagnostics":
		var p protocol.PublishDiagnosticsParams
		if err := json.Unmarshal(params, &p); err != nil {
			c.log.Warn("lsp: bad publishDiagnostics", "err", err)
			return
		}
		u := normURI(p.URI)
		c.m.diags.publish(u, p.Diagnostics)
		if f := c.m.opts.OnDiagnostics; f != nil {
			f(u, p.Diagnostics)
		}
	case "window/logMessage", "window/showMessage":
		var p protocol.LogMessageParams
		if err := json.Unmarshal(params, &p); err == nil {
			level := slog.LevelDebug
			if p.Type == protocol.MessageTypeError {
				level = slog.LevelWarn
			}
			c.log.Log(context.Background(), level, "lsp: server message", "method", method, "message", p.Message)
		}
	}
}
