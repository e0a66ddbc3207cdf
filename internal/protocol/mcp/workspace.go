package mcp

import (
	"github.com/warden-dev/warden/internal/ops"
)

// forget stops the services of root (after workspace.delete).
func (s *Server) forget(root string) {
	s.opts.Ops.Forget(root)
}

// opsWorkspace returns the operations of root.
func (s *Server) opsWorkspace(root string) (*ops.Workspace, error) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return nil, ops.ErrClosed
	}
	return s.opts.Ops.Workspace(root)
}
