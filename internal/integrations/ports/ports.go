// Package ports hands out loopback TCP ports for the agent servers warden
// starts, and remembers which it handed out so two workspaces never get the
// same one.
package ports

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
)

// ErrInUse is returned by Reserve for a port that another process (or
// another workspace) holds.
var ErrInUse = errors.New("ports: port in use")

// Manager allocates ports on 127.0.0.1. It is safe for concurrent use.
type Manager struct {
	mu    sync.Mutex
	taken map[int]bool
}

// New returns a manager with no ports handed out.
func New() *Manager { return &Manager{taken: map[int]bool{}} }

// Acquire returns a free port that no other caller holds: one the kernel
// picks, so it is free at the moment of the call.
func (m *Manager) Acquire() (int, error) {
	for range 20 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("find a free port: %w", err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		m.mu.Lock()
		if !m.taken[port] {
			m.taken[port] = true
			m.mu.Unlock()
			return port, nil
		}
		m.mu.Unlock()
	}
	return 0, errors.New("find a free port: the kernel kept offering ports already handed out")
}

// Reserve takes a specific port (to keep a server's port across restarts).
// It fails with ErrInUse when another caller holds it or something listens
// on it.
func (m *Manager) Reserve(port int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.taken[port] {
		return fmt.Errorf("%w: %d is handed out already", ErrInUse, port)
	}
	if !Free(port) {
		return fmt.Errorf("%w: something listens on 127.0.0.1:%d", ErrInUse, port)
	}
	m.taken[port] = true
	return nil
}

// Release gives a port back.
func (m *Manager) Release(port int) {
	m.mu.Lock()
	delete(m.taken, port)
	m.mu.Unlock()
}

// Free reports whether nothing listens on 127.0.0.1:port right now.
func Free(port int) bool {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	ln.Close()
	return true
}
