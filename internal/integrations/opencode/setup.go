package opencode

import (
	_ "embed"
	"fmt"
	"runtime"
	"slices"

	"github.com/warden-dev/warden/internal/integrations/agent"
	"github.com/warden-dev/warden/internal/integrations/binfind"
	"github.com/warden-dev/warden/internal/integrations/configtmpl"
)

// Version is the OpenCode version warden pins and is tested against (npm
// opencode-ai).
const Version = "1.18.33"

// ProgramName is the name of OpenCode's program on PATH.
const ProgramName = "opencode"

// configTemplate is OpenCode's config pointing its MCP client at warden's
// MCP door, with ${WARDEN_MCP_PORT}, ${WARDEN_WORKSPACE_PATH} and
// ${WARDEN_MCP_TOKEN} (the workspace's scoped agent credential) placeholders.
//
//go:embed templates/opencode.json
var configTemplate []byte

// SetupOptions configures a SetupInfo.
type SetupOptions struct {
	// Configured is an explicitly configured path of the opencode program;
	// when set it is the only place looked at.
	Configured string
	// NpmDirs are the node_modules folders to search after PATH (see
	// binfind.DefaultNpmDirs); nil searches none.
	NpmDirs []string
	// PathEnv is the PATH value to search ("" means the process's PATH).
	PathEnv string
}

// SetupInfo is agent.SetupInfo for OpenCode. It is immutable and safe for
// concurrent use.
type SetupInfo struct {
	opts       SetupOptions
	candidates []string
}

var _ agent.SetupInfo = (*SetupInfo)(nil)

// NewSetupInfo returns OpenCode's SetupInfo. The npm candidates are, in
// order: opencode-ai/bin/opencode.exe (the wrapper package's bin, which its
// postinstall replaces with the native program), opencode-linux-x64/bin/opencode,
// the package of this platform (opencode-<os>-<arch>/bin/opencode) and
// .bin/opencode.
func NewSetupInfo(opts SetupOptions) *SetupInfo {
	opts.NpmDirs = slices.Clone(opts.NpmDirs)
	return &SetupInfo{opts: opts, candidates: candidates(runtime.GOOS, runtime.GOARCH)}
}

// candidates lists the npm-relative paths of the program for goos/goarch.
func candidates(goos, goarch string) []string {
	c := []string{"opencode-ai/bin/opencode.exe", "opencode-linux-x64/bin/opencode"}
	osName, osErr := releaseOS(goos)
	arch, archErr := releaseArch(goarch)
	if osErr == nil && archErr == nil {
		exe := "opencode"
		if osName == "windows" {
			exe = "opencode.exe"
		}
		if p := "opencode-" + osName + "-" + arch + "/bin/" + exe; !slices.Contains(c, p) {
			c = append(c, p)
		}
	}
	return append(c, ".bin/opencode")
}

// Type returns agent.OpenCode.
func (*SetupInfo) Type() agent.Type { return agent.OpenCode }

// Version returns the pinned OpenCode version.
func (*SetupInfo) Version() string { return Version }

// Candidates returns the paths, relative to each npm folder, Binary looks
// at.
func (s *SetupInfo) Candidates() []string { return slices.Clone(s.candidates) }

// Binary locates the opencode program: the configured path, then PATH,
// then the npm folders. The error wraps agent.ErrNoBinary.
func (s *SetupInfo) Binary() (string, error) {
	p, err := binfind.Find(ProgramName, binfind.Options{
		Configured: s.opts.Configured, PathEnv: s.opts.PathEnv,
		NpmDirs: s.opts.NpmDirs, Candidates: s.candidates,
	})
	if err != nil {
		return "", fmt.Errorf("opencode: %w", err)
	}
	return p, nil
}

// BinaryURL returns the GitHub release asset of the pinned version for
// goos/goarch (Go's names; OpenCode's x64 is accepted for amd64): a .zip
// for darwin and windows, a .tar.gz for linux.
func (*SetupInfo) BinaryURL(goos, goarch string) (string, error) {
	osName, err := releaseOS(goos)
	if err != nil {
		return "", err
	}
	arch, err := releaseArch(goarch)
	if err != nil {
		return "", err
	}
	ext := ".zip"
	if osName == "linux" {
		ext = ".tar.gz"
	}
	return fmt.Sprintf("https://github.com/sst/opencode/releases/download/v%s/opencode-%s-%s%s", Version, osName, arch, ext), nil
}

func releaseOS(goos string) (string, error) {
	switch goos {
	case "linux", "darwin", "windows":
		return goos, nil
	}
	return "", fmt.Errorf("opencode: no release for operating system %q", goos)
}

func releaseArch(goarch string) (string, error) {
	switch goarch {
	case "amd64", "x64":
		return "x64", nil
	case "arm64":
		return "arm64", nil
	}
	return "", fmt.Errorf("opencode: no release for architecture %q", goarch)
}

// GenerateConfig writes OpenCode's config for one workspace to target,
// atomically with mode 0600 (it holds the workspace's scoped agent
// credential): the embedded template with WARDEN_MCP_PORT,
// WARDEN_WORKSPACE_PATH and WARDEN_MCP_TOKEN
// from vars, JSON-escaped. A missing variable is an error and nothing is
// written.
func (*SetupInfo) GenerateConfig(target string, vars map[string]string) error {
	if err := configtmpl.WriteFile(target, configTemplate, vars); err != nil {
		return fmt.Errorf("opencode: %w", err)
	}
	return nil
}
