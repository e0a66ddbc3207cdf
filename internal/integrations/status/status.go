// Package status is the spec's AgentStatusManager: it aggregates the status
// of every workspace's agent provider into one view and one stream of
// changes.
package status

import (
	"sort"
	"sync"

	"github.com/warden-dev/warden/internal/integrations/agent"
)

// Change is one workspace's status moving.
type Change struct {
	Workspace string       `json:"workspace"`
	From      agent.Status `json:"from"`
	To        agent.Status `json:"to"`
}

// Manager holds a provider per workspace and the last status each reported.
// It is safe for concurrent use. Subscribers are called in order of the
// changes of one workspace, without the manager's lock held.
type Manager struct {
	mu        sync.Mutex
	providers map[string]*entry
	subs      map[int]func(Change)
	next      int
	// notify serialises deliveries so subscribers never see a workspace's
	// changes out of order.
	notify sync.Mutex
}

type entry struct {
	p      agent.Provider
	unsub  func()
	status agent.Status
}

// New returns an empty manager.
func New() *Manager {
	return &Manager{providers: map[string]*entry{}, subs: map[int]func(Change){}}
}

// Register makes p the provider of workspace (replacing and unsubscribing
// an earlier one) and starts following its status.
func (m *Manager) Register(workspace string, p agent.Provider) {
	m.Unregister(workspace)
	e := &entry{p: p, status: agent.StatusNone}
	m.mu.Lock()
	m.providers[workspace] = e
	m.mu.Unlock()
	unsub := p.OnStatusChange(func(s agent.Status) { m.set(workspace, e, s) })
	m.mu.Lock()
	if m.providers[workspace] == e {
		e.unsub = unsub
		unsub = nil
	}
	m.mu.Unlock()
	if unsub != nil { // unregistered meanwhile
		unsub()
	}
}

// Unregister stops following workspace; its status becomes none (a change
// subscribers see when it was something else).
func (m *Manager) Unregister(workspace string) {
	m.mu.Lock()
	e, ok := m.providers[workspace]
	delete(m.providers, workspace)
	m.mu.Unlock()
	if !ok {
		return
	}
	if e.unsub != nil {
		e.unsub()
	}
	m.notify.Lock()
	defer m.notify.Unlock()
	m.mu.Lock()
	from := e.status
	e.status = agent.StatusNone
	subs := m.subscribers()
	m.mu.Unlock()
	if from != agent.StatusNone {
		for _, fn := range subs {
			fn(Change{Workspace: workspace, From: from, To: agent.StatusNone})
		}
	}
}

func (m *Manager) set(workspace string, e *entry, s agent.Status) {
	m.notify.Lock()
	defer m.notify.Unlock()
	m.mu.Lock()
	if m.providers[workspace] != e || e.status == s {
		m.mu.Unlock()
		return
	}
	from := e.status
	e.status = s
	subs := m.subscribers()
	m.mu.Unlock()
	for _, fn := range subs {
		fn(Change{Workspace: workspace, From: from, To: s})
	}
}

func (m *Manager) subscribers() []func(Change) {
	ids := make([]int, 0, len(m.subs))
	for id := range m.subs {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	out := make([]func(Change), len(ids))
	for i, id := range ids {
		out[i] = m.subs[id]
	}
	return out
}

// Status returns the workspace's last status (none when it has no
// provider).
func (m *Manager) Status(workspace string) agent.Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.providers[workspace]; ok {
		return e.status
	}
	return agent.StatusNone
}

// Provider returns the workspace's provider.
func (m *Manager) Provider(workspace string) (agent.Provider, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.providers[workspace]
	if !ok {
		return nil, false
	}
	return e.p, true
}

// All returns every registered workspace's status.
func (m *Manager) All() map[string]agent.Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]agent.Status, len(m.providers))
	for ws, e := range m.providers {
		out[ws] = e.status
	}
	return out
}

// OnChange registers fn for every status change of any workspace and
// returns the unsubscribe function.
func (m *Manager) OnChange(fn func(Change)) (unsubscribe func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := m.next
	m.next++
	m.subs[id] = fn
	return func() {
		m.mu.Lock()
		delete(m.subs, id)
		m.mu.Unlock()
	}
}
