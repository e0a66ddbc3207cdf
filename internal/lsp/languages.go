package lsp

import (
	"path/filepath"
	"strings"
)

// ServerConfig describes one language server: how to start it and which
// languages it serves. A Manager runs at most one process per
// (workspace root, ServerConfig.Name).
type ServerConfig struct {
	// Name identifies the server (e.g. "gopls"); it keys the server table.
	Name string
	// Command is the program name, resolved through Options.Locate.
	Command string
	// Args are the command-line arguments.
	Args []string
	// Env holds extra "KEY=value" entries appended to the environment.
	Env []string
	// Languages are the LSP language identifiers this server handles.
	Languages []string
	// RootMarkers are file names whose nearest enclosing directory is the
	// workspace root (e.g. go.mod). The first directory, walking up from a
	// document, that contains any of them wins.
	RootMarkers []string
	// InitializationOptions is sent as initializationOptions.
	InitializationOptions any
	// Settings answers workspace/configuration requests: a section such as
	// "python.analysis" is looked up by its dotted path. Unknown sections
	// are answered with null (server defaults). When non-nil, Settings is
	// also pushed once with workspace/didChangeConfiguration.
	Settings map[string]any
}

// DefaultServers returns the built-in server table: gopls for Go and
// pyright-langserver for Python. Callers may append to or replace it in
// Options.Servers.
func DefaultServers() []ServerConfig {
	return []ServerConfig{
		{
			Name:        "gopls",
			Command:     "gopls",
			Languages:   []string{"go", "go.mod", "go.sum", "go.work", "gotmpl"},
			RootMarkers: []string{"go.work", "go.mod", ".git"},
		},
		{
			Name:        "pyright",
			Command:     "pyright-langserver",
			Args:        []string{"--stdio"},
			Languages:   []string{"python"},
			RootMarkers: []string{"pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", ".git"},
		},
	}
}

var languageByExt = map[string]string{
	".go":    "go",
	".py":    "python",
	".pyi":   "python",
	".ts":    "typescript",
	".mts":   "typescript",
	".cts":   "typescript",
	".tsx":   "typescriptreact",
	".js":    "javascript",
	".mjs":   "javascript",
	".cjs":   "javascript",
	".jsx":   "javascriptreact",
	".json":  "json",
	".jsonc": "jsonc",
	".md":    "markdown",
	".rs":    "rust",
	".c":     "c",
	".h":     "c",
	".cc":    "cpp",
	".cpp":   "cpp",
	".cxx":   "cpp",
	".hpp":   "cpp",
	".hh":    "cpp",
	".java":  "java",
	".kt":    "kotlin",
	".swift": "swift",
	".cs":    "csharp",
	".rb":    "ruby",
	".php":   "php",
	".lua":   "lua",
	".sh":    "shellscript",
	".bash":  "shellscript",
	".zsh":   "shellscript",
	".yaml":  "yaml",
	".yml":   "yaml",
	".toml":  "toml",
	".html":  "html",
	".htm":   "html",
	".css":   "css",
	".scss":  "scss",
	".less":  "less",
	".sql":   "sql",
	".xml":   "xml",
	".proto": "proto",
	".tmpl":  "gotmpl",
	".txt":   "plaintext",
}

var languageByName = map[string]string{
	"go.mod":      "go.mod",
	"go.sum":      "go.sum",
	"go.work":     "go.work",
	"Dockerfile":  "dockerfile",
	"Makefile":    "makefile",
	"makefile":    "makefile",
	"GNUmakefile": "makefile",
}

// LanguageID returns the LSP language identifier for a file path or file
// URI, chosen by file name and extension: "go", "python", "typescript",
// "javascript", "json", "markdown" and so on. Unknown files are
// "plaintext".
func LanguageID(path string) string {
	base := filepath.Base(strings.TrimPrefix(path, "file://"))
	if id, ok := languageByName[base]; ok {
		return id
	}
	if id, ok := languageByExt[strings.ToLower(filepath.Ext(base))]; ok {
		return id
	}
	return "plaintext"
}
