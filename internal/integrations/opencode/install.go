// Package opencode integrates warden with OpenCode: it installs warden's
// monitor plugin into OpenCode's plugin directories.
package opencode

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/warden-dev/warden/internal/atomicfile"
	plugin "github.com/warden-dev/warden/plugins/opencode"
)

// Target says where to install: one project, or the user's global config.
type Target struct {
	// Project is the project directory (plugin in DIR/.opencode/plugin); ""
	// means global.
	Project string
	// ConfigHome is $XDG_CONFIG_HOME (global plugin in
	// ConfigHome/opencode/plugin).
	ConfigHome string
	// DataDir is warden's data dir, recorded in the plugin: it reads
	// warden's public key and the running daemon's address there. ""
	// leaves the plugin's default (~/.local/share/warden).
	DataDir string
}

// PluginPath returns where the plugin file goes for t.
func (t Target) PluginPath() (string, error) {
	if t.Project != "" {
		abs, err := filepath.Abs(t.Project)
		if err != nil {
			return "", fmt.Errorf("project %s: %w", t.Project, err)
		}
		return filepath.Join(abs, ".opencode", "plugin", plugin.FileName), nil
	}
	if t.ConfigHome == "" {
		return "", errors.New("no config home: set XDG_CONFIG_HOME or HOME")
	}
	return filepath.Join(t.ConfigHome, "opencode", "plugin", plugin.FileName), nil
}

// Change says what Install or Uninstall did.
type Change struct {
	Path   string `json:"path"`
	Action string `json:"action"` // installed, updated, unchanged, removed, absent
}

// Install writes the plugin (atomically) unless the same file is there.
// Other plugins in the directory are left alone.
func Install(t Target) (Change, error) {
	dest, err := t.PluginPath()
	if err != nil {
		return Change{}, err
	}
	src := plugin.SourceFor(t.DataDir)
	old, err := os.ReadFile(dest)
	switch {
	case err == nil && bytes.Equal(old, src):
		return Change{Path: dest, Action: "unchanged"}, nil
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return Change{}, fmt.Errorf("read %s: %w", dest, err)
	}
	action := "installed"
	if err == nil {
		action = "updated"
	}
	if err := atomicfile.Write(dest, src, 0o644, 0o755); err != nil {
		return Change{}, fmt.Errorf("install plugin: %w", err)
	}
	return Change{Path: dest, Action: action}, nil
}

// Uninstall removes warden's plugin file and nothing else.
func Uninstall(t Target) (Change, error) {
	dest, err := t.PluginPath()
	if err != nil {
		return Change{}, err
	}
	if err := os.Remove(dest); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Change{Path: dest, Action: "absent"}, nil
		}
		return Change{}, fmt.Errorf("remove %s: %w", dest, err)
	}
	return Change{Path: dest, Action: "removed"}, nil
}
