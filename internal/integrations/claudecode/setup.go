package claudecode

import (
	_ "embed"
	"fmt"
	"runtime"
	"slices"

	"github.com/warden-dev/warden/internal/integrations/agent"
	"github.com/warden-dev/warden/internal/integrations/binfind"
	"github.com/warden-dev/warden/internal/integrations/configtmpl"
)

// Version is the Claude Code version warden pins and is tested against (npm
// @anthropic-ai/claude-code).
const Version = "2.1.197"

// ProgramName is the name of Claude Code's program on PATH.
const ProgramName = "claude"

// mcpTemplate is Claude Code's MCP config (the file format of
// `claude --mcp-config FILE` and of a project's .mcp.json) pointing at
// warden's MCP door, with ${WARDEN_MCP_PORT}, ${WARDEN_WORKSPACE_PATH} and
// ${WARDEN_MCP_TOKEN} (the workspace's scoped agent credential) placeholders.
//
//go:embed templates/mcp.json
var mcpTemplate []byte

// SetupOptions configures a SetupInfo.
type SetupOptions struct {
	// Configured is an explicitly configured path of the claude program;
	// when set it is the only place looked at.
	Configured string
	// NpmDirs are the node_modules folders to search after PATH (see
	// binfind.DefaultNpmDirs); nil searches none.
	NpmDirs []string
	// PathEnv is the PATH value to search ("" means the process's PATH).
	PathEnv string
}

// SetupInfo is agent.SetupInfo for Claude Code. It is immutable and safe for
// concurrent use.
type SetupInfo struct {
	opts       SetupOptions
	candidates []string
}

var _ agent.SetupInfo = (*SetupInfo)(nil)

// NewSetupInfo returns Claude Code's SetupInfo. The npm candidates follow
// the layout of `npm install @anthropic-ai/claude-code`, in order:
// @anthropic-ai/claude-code/bin/claude.exe (the wrapper's bin, which its
// postinstall replaces with the native program, on every OS),
// @anthropic-ai/claude-code-linux-x64/claude, the native package of this
// platform (@anthropic-ai/claude-code-<os>-<arch>/claude, claude.exe on
// Windows) and .bin/claude.
func NewSetupInfo(opts SetupOptions) *SetupInfo {
	opts.NpmDirs = slices.Clone(opts.NpmDirs)
	return &SetupInfo{opts: opts, candidates: candidates(runtime.GOOS, runtime.GOARCH)}
}

// candidates lists the npm-relative paths of the program for goos/goarch.
func candidates(goos, goarch string) []string {
	c := []string{"@anthropic-ai/claude-code/bin/claude.exe", "@anthropic-ai/claude-code-linux-x64/claude"}
	if pkg, err := nativePackage(goos, goarch); err == nil {
		exe := "claude"
		if goos == "windows" || goos == "win32" {
			exe = "claude.exe"
		}
		if p := "@anthropic-ai/" + pkg + "/" + exe; !slices.Contains(c, p) {
			c = append(c, p)
		}
	}
	return append(c, ".bin/claude")
}

// nativePackage returns the name (without the @anthropic-ai/ scope) of the
// npm package holding the native program for goos/goarch, e.g.
// claude-code-linux-x64.
func nativePackage(goos, goarch string) (string, error) {
	var osName, arch string
	switch goos {
	case "linux", "darwin":
		osName = goos
	case "windows", "win32":
		osName = "win32"
	default:
		return "", fmt.Errorf("claude code: no native package for operating system %q", goos)
	}
	switch goarch {
	case "amd64", "x64":
		arch = "x64"
	case "arm64":
		arch = "arm64"
	default:
		return "", fmt.Errorf("claude code: no native package for architecture %q", goarch)
	}
	return "claude-code-" + osName + "-" + arch, nil
}

// Type returns agent.ClaudeCode.
func (*SetupInfo) Type() agent.Type { return agent.ClaudeCode }

// Version returns the pinned Claude Code version.
func (*SetupInfo) Version() string { return Version }

// Candidates returns the paths, relative to each npm folder, Binary looks
// at.
func (s *SetupInfo) Candidates() []string { return slices.Clone(s.candidates) }

// Binary locates the claude program: the configured path, then PATH, then
// the npm folders. The error wraps agent.ErrNoBinary.
func (s *SetupInfo) Binary() (string, error) {
	p, err := binfind.Find(ProgramName, binfind.Options{
		Configured: s.opts.Configured, PathEnv: s.opts.PathEnv,
		NpmDirs: s.opts.NpmDirs, Candidates: s.candidates,
	})
	if err != nil {
		return "", fmt.Errorf("claude code: %w", err)
	}
	return p, nil
}

// BinaryURL returns the npm tarball of the pinned version's native package
// for goos/goarch (Go's names; npm's win32 and x64 are accepted too), e.g.
// https://registry.npmjs.org/@anthropic-ai/claude-code-linux-x64/-/claude-code-linux-x64-2.1.197.tgz.
// The program is package/claude (claude.exe on Windows) inside it.
func (*SetupInfo) BinaryURL(goos, goarch string) (string, error) {
	pkg, err := nativePackage(goos, goarch)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("https://registry.npmjs.org/@anthropic-ai/%s/-/%s-%s.tgz", pkg, pkg, Version), nil
}

// GenerateConfig writes Claude Code's MCP config for one workspace to
// target (for `claude --mcp-config target`), atomically with mode 0600 (it
// holds the workspace's scoped agent credential): the embedded template
// with WARDEN_MCP_PORT, WARDEN_WORKSPACE_PATH and WARDEN_MCP_TOKEN from
// vars, JSON-escaped. A missing
// variable is an error and nothing is written.
func (*SetupInfo) GenerateConfig(target string, vars map[string]string) error {
	if err := configtmpl.WriteFile(target, mcpTemplate, vars); err != nil {
		return fmt.Errorf("claude code: MCP %w", err)
	}
	return nil
}
