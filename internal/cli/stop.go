package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/warden-dev/warden/internal/daemon"
)

// stopTimeout bounds how long `warden stop` waits for the daemon to end.
const stopTimeout = 30 * time.Second

func newStopCmd(o *options) *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "stop",
		Short: "Stop the daemon of this data dir (SIGTERM) and wait until it has ended",
		Long: `Send SIGTERM to the daemon that serves this data dir (--data-dir,
$WARDEN_DATA_DIR, the config's dataDir, or the default), the same graceful
shutdown as Ctrl-C in its terminal, and wait until the process has ended.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := o.loadConfig()
			if err != nil {
				return err
			}
			dir, err := o.resolveDataDir(cfg)
			if err != nil {
				return err
			}
			if abs, err := filepath.Abs(dir); err == nil {
				dir = abs
			}
			pid, err := daemonPID(cmd.Context(), o, dir)
			if err != nil {
				return err
			}
			p, err := os.FindProcess(pid)
			if err != nil {
				return fmt.Errorf("find warden (pid %d): %w", pid, err)
			}
			// Watch the process before signalling it, so its end is not missed.
			ended, err := watchExit(pid)
			if err != nil {
				return err
			}
			if err := p.Signal(syscall.SIGTERM); err != nil {
				if errors.Is(err, os.ErrProcessDone) {
					fmt.Fprintf(o.stdout, "warden (pid %d) had already ended\n", pid)
					return nil
				}
				return fmt.Errorf("signal warden (pid %d): %w", pid, err)
			}
			fmt.Fprintf(o.stderr, "stopping warden (pid %d, data dir %s)...\n", pid, dir)
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			select {
			case <-ended:
				fmt.Fprintf(o.stdout, "warden (pid %d) stopped\n", pid)
				return nil
			case <-ctx.Done():
				return fmt.Errorf("warden (pid %d) is still running after %s; see its log, or end it with: kill -9 %d", pid, timeout, pid)
			}
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", stopTimeout, "how long to wait for the daemon to end")
	return cmd
}

// daemonPID is the pid of the daemon serving dataDir: the one the admin
// socket answers for, so a stale runtime file never gets a stranger
// signalled.
func daemonPID(ctx context.Context, o *options, dataDir string) (int, error) {
	notRunning := fmt.Errorf("no warden daemon runs for data dir %s (start one with: warden serve)", dataDir)
	if _, err := daemon.ReadRuntime(dataDir); err != nil {
		return 0, notRunning
	}
	c, err := o.dial()
	if err != nil {
		return 0, fmt.Errorf("%w: %w", notRunning, err)
	}
	st, err := c.Status(ctx)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", notRunning, err)
	}
	if st.PID <= 0 {
		return 0, notRunning
	}
	return st.PID, nil
}
