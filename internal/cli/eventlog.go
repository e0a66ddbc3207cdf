package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/warden-dev/warden/internal/daemon"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/protocol/admin"
	"github.com/warden-dev/warden/internal/store/sqlite"
)

// importBatch is how many events one Restore carries (one transaction).
const importBatch = 1000

// logDataDir resolves the data dir as every command does.
func (o *options) logDataDir() (string, error) {
	cfg, err := o.loadConfig()
	if err != nil {
		return "", err
	}
	return o.resolveDataDir(cfg)
}

func newEventsExportCmd(o *options) *cobra.Command {
	var (
		after int64
		out   string
	)
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write the whole log as JSON lines (a backup), resumable by event id",
		Long: `export writes every event of the data dir's log with an id above --after, in id
order, one JSON object per line (the shape of warden events --json): a backup that
warden events import brings back. It reads events.db directly and read-only, so it
works with the daemon running (a consistent page at a time) or stopped, and needs no
token, only read access to the data dir. An interrupted export resumes with
--after set to the last id it wrote (it says which on stderr).`,
		Example: `  warden events export > backup.jsonl
  warden events export --after 69897 >> backup.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := o.logDataDir()
			if err != nil {
				return err
			}
			w := o.stdout
			if out != "" && out != "-" {
				f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
				if err != nil {
					return fmt.Errorf("export: %w", err)
				}
				defer f.Close()
				w = f
			}
			bw := bufio.NewWriterSize(w, 1<<16)
			enc := json.NewEncoder(bw)
			logPath := filepath.Join(dir, daemon.LogName)
			var bar *countBar
			if tty := isTTY(o.stderr); tty {
				if end, err := sqlite.LastIDIn(cmd.Context(), logPath); err == nil {
					bar = newCountBar(o.stderr, tty, "exporting", end-after, func(n, total int64) string {
						return fmt.Sprintf("%d/%d events", n, total)
					})
				}
			}
			var n, first, last int64
			err = sqlite.Export(cmd.Context(), logPath, after, func(e event.Event) error {
				if err := enc.Encode(e); err != nil {
					return fmt.Errorf("export: write: %w", err)
				}
				if n == 0 {
					first = e.ID
				}
				n, last = n+1, e.ID
				bar.set(e.ID - after)
				return nil
			})
			bar.done()
			if ferr := bw.Flush(); err == nil && ferr != nil {
				err = fmt.Errorf("export: write: %w", ferr)
			}
			if f, ok := w.(*os.File); ok && w != o.stdout && err == nil {
				if serr := f.Sync(); serr != nil {
					err = fmt.Errorf("export: sync %s: %w", out, serr)
				}
			}
			switch {
			case err != nil && n > 0:
				return fmt.Errorf("%w (wrote %d events through id %d: resume with --after %d)", err, n, last, last)
			case err != nil:
				return err
			case n == 0:
				fmt.Fprintf(o.stderr, "no events after id %d\n", after)
			default:
				fmt.Fprintf(o.stderr, "exported %d events, ids %d..%d (resume with --after %d)\n", n, first, last, last)
			}
			return nil
		},
	}
	cmd.Flags().Int64Var(&after, "after", 0, "only events with an id above this one (resume an export)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to this file instead of stdout")
	return cmd
}

func newEventsImportCmd(o *options) *cobra.Command {
	var resume bool
	cmd := &cobra.Command{
		Use:   "import [FILE]",
		Short: "Restore an export into a fresh data dir (its log must hold no events)",
		Long: `import reads JSON lines written by warden events export (FILE, or stdin) and
restores them into the data dir's log with their ids, sequence numbers and times, in
transactions of 1,000 events. The data dir must have no daemon running and its log no
events: import refuses a log that holds any, unless --resume continues an import that
stopped (events the log already holds are skipped). Then warden serve on that data dir
serves the restored history.`,
		Example: `  warden --data-dir ~/restored events import backup.jsonl`,
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := o.logDataDir()
			if err != nil {
				return err
			}
			var in io.Reader = o.stdin
			var size int64
			if len(args) == 1 && args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return fmt.Errorf("import: %w", err)
				}
				defer f.Close()
				in = f
				if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
					size = fi.Size()
				}
			}
			counted := &countingReader{r: in}
			bar := newCountBar(o.stderr, isTTY(o.stderr), "importing", size, func(n, total int64) string {
				return mb(n) + "/" + mb(total)
			})
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return fmt.Errorf("import: create data dir: %w", err)
			}
			unlock, err := daemon.LockDataDir(dir)
			if err != nil {
				return fmt.Errorf("import: %w", err)
			}
			defer unlock()
			st, err := sqlite.Open(filepath.Join(dir, daemon.LogName), sqlite.WithGeneration(filepath.Join(dir, sqlite.GenerationName)))
			if err != nil {
				return fmt.Errorf("import: %w", err)
			}
			n, last, err := importEvents(cmd, st, counted, resume, func() { bar.set(counted.n) })
			bar.done()
			if cerr := st.Close(); err == nil && cerr != nil {
				err = fmt.Errorf("import: %w", cerr)
			}
			if err != nil {
				if n > 0 {
					return fmt.Errorf("%w (%d events imported through id %d; fix the input and run again with --resume)", err, n, last)
				}
				return err
			}
			fmt.Fprintf(o.stderr, "imported %d events into %s (last id %d)\n", n, filepath.Join(dir, daemon.LogName), last)
			return nil
		},
	}
	cmd.Flags().BoolVar(&resume, "resume", false, "continue an interrupted import: skip the events the log already holds")
	return cmd
}

// importEvents restores the JSON lines of in into st, calling tick after
// each event read; it returns how many events it stored and the last id.
func importEvents(cmd *cobra.Command, st *sqlite.Store, in io.Reader, resume bool, tick func()) (n, last int64, err error) {
	ctx := cmd.Context()
	have, err := st.LastID(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("import: %w", err)
	}
	if have > 0 && !resume {
		return 0, 0, fmt.Errorf("import: the log at %s already holds events (last id %d): import only into a fresh data dir (--data-dir), or --resume an import that stopped", st.Path(), have)
	}
	last = have
	dec := json.NewDecoder(bufio.NewReaderSize(in, 1<<16))
	dec.DisallowUnknownFields()
	batch := make([]event.Event, 0, importBatch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := st.Restore(ctx, batch...); err != nil {
			return fmt.Errorf("import: %w", err)
		}
		n += int64(len(batch))
		last = batch[len(batch)-1].ID
		batch = batch[:0]
		return nil
	}
	for line := 1; ; line++ {
		var e event.Event
		err := dec.Decode(&e)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return n, last, errors.Join(flush(), fmt.Errorf("import: event %d of the input: %w", line, err))
		}
		tick()
		if e.ID <= have {
			continue // --resume: already in the log
		}
		// What core.Record refuses from any door is not restored either.
		if err := event.CheckDepth(e.Data, event.MaxDepth); err != nil {
			return n, last, errors.Join(flush(), fmt.Errorf("import: event %d of the input (id %d): %w", line, e.ID, err))
		}
		batch = append(batch, e)
		if len(batch) == importBatch {
			if err := flush(); err != nil {
				return n, last, err
			}
		}
	}
	return n, last, flush()
}

func newEventsPruneCmd(o *options) *cobra.Command {
	var before string
	cmd := &cobra.Command{
		Use:   "prune --before DURATION|ID",
		Short: "Remove old events through the daemon; sessions keep their summaries",
		Long: `prune removes the oldest events of the log, through the running daemon (admin
credential): --before ID removes every event with a smaller id (the ID column of
warden events); --before DURATION (720h, 30d) removes the events older than that,
up to the first event that is not (the log keeps ids in order, so it removes a prefix).
Sessions keep their summaries (warden sessions still lists them with their stats),
ids are never reused, and a session's sequence numbers go on where they were. Take a
backup first if you may want the events back: warden events export.`,
		Example: `  warden events prune --before 30d
  warden events prune --before 120000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			req, err := admin.ParsePruneBefore(before)
			if err != nil {
				return err
			}
			c, err := o.dial()
			if err != nil {
				return err
			}
			res, err := c.Prune(cmd.Context(), req)
			if err != nil {
				return err
			}
			fmt.Fprintf(o.stdout, "pruned %d events (every event before id %d); %d sessions keep their summaries\n", res.Removed, res.Before, res.Sessions)
			return nil
		},
	}
	cmd.Flags().StringVar(&before, "before", "", "an event id, or a duration such as 720h or 30d (required)")
	_ = cmd.MarkFlagRequired("before")
	return cmd
}
