package claudecode

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/warden-dev/warden/internal/integrations/agent"
)

// ServerManager is Claude Code's agent.ServerManager. Claude Code has no
// server of its own: every workspace shares warden's hook door, which the
// daemon runs. "Starting" a workspace registers it against the door's
// port; nothing is spawned (PID is 0).
type ServerManager struct {
	port int

	mu       sync.Mutex
	ws       map[string]bool
	started  map[int]func(string, int)
	stopped  map[int]func(string, bool)
	next     int
	disposed bool
}

var _ agent.ServerManager = (*ServerManager)(nil)

// NewServerManager returns the manager of workspaces served by the hook
// door on hookPort (0 when the door is off: starts fail).
func NewServerManager(hookPort int) *ServerManager {
	return &ServerManager{port: hookPort, ws: map[string]bool{}, started: map[int]func(string, int){}, stopped: map[int]func(string, bool){}}
}

// StartServer implements agent.ServerManager.
func (m *ServerManager) StartServer(_ context.Context, ws string) (int, error) {
	m.mu.Lock()
	if m.disposed {
		m.mu.Unlock()
		return 0, fmt.Errorf("claude-code: manager disposed")
	}
	if m.port == 0 {
		m.mu.Unlock()
		return 0, fmt.Errorf("claude-code follows the hook door, which is switched off (serve with --hooks-addr)")
	}
	if m.ws[ws] {
		m.mu.Unlock()
		return m.port, nil
	}
	m.ws[ws] = true
	subs := make([]func(string, int), 0, len(m.started))
	for _, fn := range m.started {
		subs = append(subs, fn)
	}
	m.mu.Unlock()
	for _, fn := range subs {
		fn(ws, m.port)
	}
	return m.port, nil
}

// StopServer implements agent.ServerManager: the workspace is no longer
// followed (the shared door keeps serving the others).
func (m *ServerManager) StopServer(_ context.Context, ws string) (agent.StopResult, error) {
	m.mu.Lock()
	if !m.ws[ws] {
		m.mu.Unlock()
		return agent.StopResult{}, nil
	}
	delete(m.ws, ws)
	subs := make([]func(string, bool), 0, len(m.stopped))
	for _, fn := range m.stopped {
		subs = append(subs, fn)
	}
	m.mu.Unlock()
	for _, fn := range subs {
		fn(ws, false)
	}
	return agent.StopResult{Stopped: true}, nil
}

// RestartServer implements agent.ServerManager.
func (m *ServerManager) RestartServer(ctx context.Context, ws string) (int, error) {
	if _, err := m.StopServer(ctx, ws); err != nil {
		return 0, err
	}
	return m.StartServer(ctx, ws)
}

// IsRunning implements agent.ServerManager.
func (m *ServerManager) IsRunning(ws string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ws[ws]
}

// Port implements agent.ServerManager.
func (m *ServerManager) Port(ws string) (int, bool) {
	if !m.IsRunning(ws) {
		return 0, false
	}
	return m.port, true
}

// PID implements agent.ServerManager: there is no process.
func (m *ServerManager) PID(string) int { return 0 }

// StopAllForProject implements agent.ServerManager.
func (m *ServerManager) StopAllForProject(ctx context.Context, project string) error {
	m.mu.Lock()
	var list []string
	for ws := range m.ws {
		if ws == project || strings.HasPrefix(ws, strings.TrimSuffix(project, "/")+"/") {
			list = append(list, ws)
		}
	}
	m.mu.Unlock()
	for _, ws := range list {
		if _, err := m.StopServer(ctx, ws); err != nil {
			return err
		}
	}
	return nil
}

// OnServerStarted implements agent.ServerManager.
func (m *ServerManager) OnServerStarted(fn func(string, int)) func() {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := m.next
	m.next++
	m.started[id] = fn
	return func() { m.mu.Lock(); delete(m.started, id); m.mu.Unlock() }
}

// OnServerStopped implements agent.ServerManager.
func (m *ServerManager) OnServerStopped(fn func(string, bool)) func() {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := m.next
	m.next++
	m.stopped[id] = fn
	return func() { m.mu.Lock(); delete(m.stopped, id); m.mu.Unlock() }
}

// Dispose implements agent.ServerManager.
func (m *ServerManager) Dispose(context.Context) error {
	m.mu.Lock()
	m.disposed = true
	m.ws = map[string]bool{}
	m.mu.Unlock()
	return nil
}
