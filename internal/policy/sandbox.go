package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// SandboxConfig is the `sandbox:` section of a policy file: what a process
// warden starts on an agent's behalf may touch (see docs/policy.md). The
// zero value is the built-in default: enabled, with the built-in lists.
//
// Paths are absolute, or start with "~" (the home directory) or
// "$WORKSPACE" (the workspace); package sandbox expands and checks them.
type SandboxConfig struct {
	// Enabled switches confinement on or off (nil: on).
	Enabled *bool `yaml:"enabled,omitempty" json:"enabled,omitempty"`
	// Defaults keeps the built-in entries in the home directory (build
	// caches, toolchains, the shell's and git's config); false drops them
	// (nil: kept). The workspace, temp dirs, devices and system directories
	// are always granted; the built-in secret locations are always denied.
	Defaults *bool `yaml:"defaults,omitempty" json:"defaults,omitempty"`
	// ReadWrite are directories or files to grant read, write and execute.
	ReadWrite []string `yaml:"readWrite,omitempty" json:"readWrite,omitempty"`
	// ReadOnly are directories or files to grant read and execute.
	ReadOnly []string `yaml:"readOnly,omitempty" json:"readOnly,omitempty"`
	// Deny are more secret locations: no granted path may contain one or
	// lie inside one (such a grant is dropped, loudly).
	Deny []string `yaml:"deny,omitempty" json:"deny,omitempty"`
	// UnixSockets allows creating Unix sockets on kernels whose Landlock
	// (before ABI 9) cannot tell the sandbox's own socket files from the
	// user's (ssh-agent, tmux, D-Bus, Docker): false (the default) refuses
	// socket(AF_UNIX) there; true lets a confined command reach those.
	UnixSockets *bool `yaml:"unixSockets,omitempty" json:"unixSockets,omitempty"`
	// TempDirs, when set, replaces the built-in temp dirs (/tmp, /var/tmp,
	// /dev/shm), which are read-write.
	TempDirs []string `yaml:"tempDirs,omitempty" json:"tempDirs,omitempty"`
}

// IsEnabled reports whether confinement is on (the default).
func (c SandboxConfig) IsEnabled() bool { return c.Enabled == nil || *c.Enabled }

// UsesDefaults reports whether the built-in home entries are kept (the
// default).
func (c SandboxConfig) UsesDefaults() bool { return c.Defaults == nil || *c.Defaults }

// Validate checks that every path is absolute or starts with "~" or
// "$WORKSPACE", and holds no NUL byte.
func (c SandboxConfig) Validate() error {
	lists := []struct {
		name  string
		paths []string
	}{{"readWrite", c.ReadWrite}, {"readOnly", c.ReadOnly}, {"deny", c.Deny}, {"tempDirs", c.TempDirs}}
	for _, l := range lists {
		for i, p := range l.paths {
			if err := checkSandboxPath(p); err != nil {
				return fmt.Errorf("sandbox.%s[%d] %q: %w", l.name, i, p, err)
			}
		}
	}
	return nil
}

func checkSandboxPath(p string) error {
	switch {
	case p == "":
		return errors.New("empty path")
	case strings.ContainsRune(p, 0):
		return errors.New("NUL byte in path")
	case strings.HasPrefix(p, "/"), p == "~", strings.HasPrefix(p, "~/"),
		p == "$WORKSPACE", strings.HasPrefix(p, "$WORKSPACE/"):
		return nil
	}
	return errors.New("want an absolute path, or one starting with ~/ or $WORKSPACE/")
}

// Sandbox returns the policy file's sandbox section (the built-in default
// when the file has none; with `extends: default` the file's own section,
// or the default).
func (p *Policy) Sandbox() SandboxConfig { return p.sandbox }

// ParseSandbox reads only the `sandbox:` section of a policy file (strictly:
// unknown keys inside it are errors), without compiling its rules. It is
// what `warden sandbox` uses to start fast; `warden policy check` and the
// daemon read the whole file with Parse.
func ParseSandbox(data []byte) (SandboxConfig, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return SandboxConfig{}, fmt.Errorf("parse policy: %w", err)
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return SandboxConfig{}, errors.New("parse policy: the file is empty")
	}
	m := root.Content[0]
	if m.Kind != yaml.MappingNode {
		return SandboxConfig{}, fmt.Errorf("parse policy: line %d: want a mapping", m.Line)
	}
	var c SandboxConfig
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != "sandbox" {
			continue
		}
		// Re-encode the section and decode it strictly, so a typo inside it
		// is an error here as it is in Parse.
		sec, err := yaml.Marshal(m.Content[i+1])
		if err != nil {
			return SandboxConfig{}, fmt.Errorf("parse policy: sandbox: %w", err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(sec))
		dec.KnownFields(true)
		if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
			return SandboxConfig{}, fmt.Errorf("parse policy: sandbox (line %d): %w", m.Content[i].Line, err)
		}
	}
	if err := c.Validate(); err != nil {
		return SandboxConfig{}, err
	}
	return c, nil
}

// LoadSandboxFile reads the `sandbox:` section of the policy file at path
// (see ParseSandbox).
func LoadSandboxFile(path string) (SandboxConfig, error) {
	f, err := os.Open(path)
	if err != nil {
		return SandboxConfig{}, fmt.Errorf("open policy: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxPolicySize+1))
	if err != nil {
		return SandboxConfig{}, fmt.Errorf("read policy %s: %w", path, err)
	}
	if len(data) > MaxPolicySize {
		return SandboxConfig{}, fmt.Errorf("policy %s is larger than %d bytes", path, MaxPolicySize)
	}
	c, err := ParseSandbox(data)
	if err != nil {
		return SandboxConfig{}, fmt.Errorf("policy %s: %w", path, err)
	}
	return c, nil
}
