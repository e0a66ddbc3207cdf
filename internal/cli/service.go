package cli

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"
)

// serviceUnit is a login service that runs `warden serve`: where its file
// goes, what it holds, and the commands that switch it on and off.
type serviceUnit struct {
	// Path is the unit file (systemd) or the agent's plist (launchd).
	Path string
	// Content is the file's content.
	Content []byte
	// Enable is the command that starts it now and at every login.
	Enable string
	// Disable is the command that stops a running one once its file is gone.
	Disable string
	// Links are the files `enable` made that uninstall removes with it.
	Links []string
}

// serviceSpec is what the service runs.
type serviceSpec struct {
	goos       string // "linux" or "darwin"
	home       string // the user's home
	configHome string // $XDG_CONFIG_HOME, or "" for ~/.config
	exe        string // absolute path of the warden binary
	dataDir    string // absolute data dir
	configFile string // absolute config file, or ""
}

// args is warden's command line in the service.
func (s serviceSpec) args() []string {
	a := []string{s.exe, "--data-dir", s.dataDir}
	if s.configFile != "" {
		a = append(a, "--config", s.configFile)
	}
	return append(a, "serve")
}

// unit builds the service file for s.goos.
func (s serviceSpec) unit() (serviceUnit, error) {
	switch s.goos {
	case "linux":
		dir := s.configHome
		if dir == "" {
			dir = filepath.Join(s.home, ".config")
		}
		path := filepath.Join(dir, "systemd", "user", "warden.service")
		quoted := make([]string, 0, len(s.args()))
		for _, a := range s.args() {
			quoted = append(quoted, systemdQuote(a))
		}
		var b bytes.Buffer
		fmt.Fprintf(&b, `# Written by "warden service install"; "warden service uninstall" removes it.
[Unit]
Description=warden: a local control plane for AI coding agents
After=default.target

[Service]
Type=simple
WorkingDirectory=%s
ExecStart=%s
ExecReload=/bin/kill -HUP $MAINPID
Restart=on-failure
RestartSec=2

[Install]
WantedBy=default.target
`, systemdQuote(s.home), strings.Join(quoted, " "))
		return serviceUnit{
			Path:    path,
			Content: b.Bytes(),
			Enable:  "systemctl --user daemon-reload && systemctl --user enable --now warden.service",
			Disable: "systemctl --user stop warden.service; systemctl --user daemon-reload",
			Links:   []string{filepath.Join(dir, "systemd", "user", "default.target.wants", "warden.service")},
		}, nil
	case "darwin":
		path := filepath.Join(s.home, "Library", "LaunchAgents", launchdLabel+".plist")
		var b bytes.Buffer
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Written by "warden service install"; "warden service uninstall" removes it. -->
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + launchdLabel + `</string>
	<key>ProgramArguments</key>
	<array>
`)
		for _, a := range s.args() {
			b.WriteString("\t\t<string>" + xmlEscape(a) + "</string>\n")
		}
		logFile := xmlEscape(filepath.Join(s.dataDir, "warden.log"))
		b.WriteString(`	</array>
	<key>WorkingDirectory</key>
	<string>` + xmlEscape(s.home) + `</string>
	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>StandardOutPath</key>
	<string>` + logFile + `</string>
	<key>StandardErrorPath</key>
	<string>` + logFile + `</string>
</dict>
</plist>
`)
		return serviceUnit{
			Path:    path,
			Content: b.Bytes(),
			Enable:  "launchctl bootstrap gui/$(id -u) " + shellQuote(path),
			Disable: "launchctl bootout gui/$(id -u)/" + launchdLabel,
		}, nil
	}
	return serviceUnit{}, fmt.Errorf("warden service supports Linux (systemd) and macOS (launchd), not %s; run warden serve from your own session manager", s.goos)
}

// launchdLabel names warden's launchd agent.
const launchdLabel = "dev.warden.serve"

// systemdQuote quotes a word of an ExecStart= line when it needs it, and
// escapes the specifiers systemd would expand.
func systemdQuote(s string) string {
	s = strings.ReplaceAll(s, "%", "%%")
	if s != "" && !strings.ContainsAny(s, " \t\"'\\$;") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `$$`)
	return `"` + r.Replace(s) + `"`
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\"'\\$`;&|<>()*?[]#~!{}") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func xmlEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// serviceSpecHere is the service for this binary, data dir and config.
func (o *options) serviceSpecHere() (serviceSpec, error) {
	cfg, err := o.loadConfig()
	if err != nil {
		return serviceSpec{}, err
	}
	dir, err := o.resolveDataDir(cfg)
	if err != nil {
		return serviceSpec{}, err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return serviceSpec{}, err
	}
	exe, err := os.Executable()
	if err != nil {
		return serviceSpec{}, fmt.Errorf("find warden's binary: %w", err)
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return serviceSpec{}, errors.New("this warden runs from go run's temporary build; install a lasting binary first (go install ./cmd/warden), then run: warden service install")
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return serviceSpec{}, err
	}
	s := serviceSpec{goos: runtime.GOOS, home: h, configHome: os.Getenv("XDG_CONFIG_HOME"), exe: exe, dataDir: dir}
	if o.configFile != "" {
		if s.configFile, err = filepath.Abs(o.configFile); err != nil {
			return serviceSpec{}, err
		}
	}
	return s, nil
}

func newServiceCmd(o *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "service",
		Short: "Run warden at login: a systemd user unit (Linux) or a launchd agent (macOS)",
		Long: `"warden service install" writes a systemd user unit (Linux:
~/.config/systemd/user/warden.service) or a launchd agent (macOS:
~/Library/LaunchAgents/dev.warden.serve.plist) that runs this binary's
"warden serve" with this data dir and config, and prints the command that
switches it on. "warden service uninstall" removes the file and prints the
command that switches it off.`,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "install",
		Short: "Write the login service that runs warden serve",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			s, err := o.serviceSpecHere()
			if err != nil {
				return err
			}
			u, err := s.unit()
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(u.Path), 0o755); err != nil {
				return fmt.Errorf("service: %w", err)
			}
			if err := os.WriteFile(u.Path, u.Content, 0o644); err != nil {
				return fmt.Errorf("service: %w", err)
			}
			fmt.Fprintf(o.stdout, "wrote %s (runs: %s)\nswitch it on now and at every login with:\n  %s\n",
				u.Path, strings.Join(s.args(), " "), u.Enable)
			return nil
		},
	}, &cobra.Command{
		Use:   "uninstall",
		Short: "Remove the login service",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			s, err := o.serviceSpecHere()
			if err != nil && !strings.Contains(err.Error(), "go run") {
				return err
			}
			if s.goos == "" {
				s.goos = runtime.GOOS
				s.home, _ = os.UserHomeDir()
				s.configHome = os.Getenv("XDG_CONFIG_HOME")
			}
			u, err := s.unit()
			if err != nil {
				return err
			}
			if err := os.Remove(u.Path); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					fmt.Fprintf(o.stdout, "no warden service at %s; nothing to remove\n", u.Path)
					return nil
				}
				return fmt.Errorf("service: %w", err)
			}
			for _, l := range u.Links {
				if err := os.Remove(l); err == nil {
					fmt.Fprintf(o.stdout, "removed %s\n", l)
				}
			}
			fmt.Fprintf(o.stdout, "removed %s\nif it is running, stop it with:\n  %s\n", u.Path, u.Disable)
			return nil
		},
	})
	return cmd
}
