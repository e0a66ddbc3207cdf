package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/warden-dev/warden/internal/index"
	"github.com/warden-dev/warden/internal/protocol/admin"
)

func newIndexCmd(o *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "index",
		Short: "The code index: status, build, search (asks the daemon when it runs)",
		Long: `warden keeps a code index of every registered workspace: exact search (trigrams),
ranked search (BM25 over definitions, identifiers split) and symbols. With the daemon
running these commands ask it (so a file saved a moment ago is found); without it they
open the workspace's index in the data dir themselves.`,
	}
	cmd.AddCommand(newIndexStatusCmd(o), newIndexBuildCmd(o), newIndexSearchCmd(o))
	return cmd
}

// indexTarget is where an index command runs: the daemon (its control
// door) or the index opened here.
type indexTarget struct {
	o       *options
	root    string
	dataDir string
	token   string
	daemon  bool
}

func (o *options) indexTarget(ctx context.Context, workspace string) (*indexTarget, error) {
	abs, err := o.workspacePath(ctx, workspace)
	if err != nil {
		return nil, err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	cfg, err := o.loadConfig()
	if err != nil {
		return nil, err
	}
	dataDir, err := o.resolveDataDir(cfg)
	if err != nil {
		return nil, err
	}
	t := &indexTarget{o: o, root: abs, dataDir: dataDir, token: cfg.Control.Token}
	if c, err := admin.Dial(dataDir); err == nil {
		if _, err := c.Status(ctx); err == nil {
			t.daemon = true
		} else if !errors.Is(err, admin.ErrNotRunning) {
			return nil, err
		}
	}
	return t, nil
}

// open opens the workspace's index in the data dir (no daemon).
func (t *indexTarget) open(ctx context.Context) (*index.Index, error) {
	return index.Open(ctx, index.Options{Root: t.root, Dir: index.CatalogDir(filepath.Join(t.dataDir, "index"), t.root)})
}

// call asks the daemon's control door.
func (t *indexTarget) call(ctx context.Context, method string, params any, onNotify func(string, json.RawMessage)) (json.RawMessage, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	return controlCallNotified(ctx, t.dataDir, t.token, t.root, method, b, onNotify)
}

func newIndexStatusCmd(o *options) *cobra.Command {
	var workspace string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the workspace's code index: files, symbols, size, generation",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, err := o.indexTarget(cmd.Context(), workspace)
			if err != nil {
				return err
			}
			var st index.Status
			if t.daemon {
				res, err := t.call(cmd.Context(), "index.status", map[string]any{}, nil)
				if err != nil {
					return err
				}
				if err := json.Unmarshal(res, &st); err != nil {
					return err
				}
			} else {
				x, err := t.open(cmd.Context())
				if err != nil {
					return err
				}
				defer x.Close()
				st = x.Status()
			}
			if asJSON {
				return o.printJSON(st)
			}
			printIndexStatus(o.stdout, st, t.daemon)
			return nil
		},
	}
	cmd.Flags().StringVarP(&workspace, "workspace", "w", "", "the workspace: a directory in it, or its name (default: the current directory)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printIndexStatus(w io.Writer, st index.Status, daemon bool) {
	from := "opened here (no daemon)"
	if daemon {
		from = "the daemon's"
	}
	gen := st.Generation
	if gen == "" {
		gen = "none (never built: run `warden index build`)"
	}
	fmt.Fprintf(w, "workspace   %s\nindex       %s\ngeneration  %s\n", st.Root, from, gen)
	if st.Building {
		fmt.Fprintf(w, "building    %s %d/%d files\n", st.Progress.Phase, st.Progress.Files, st.Progress.Total)
	}
	fmt.Fprintf(w, "files       %d (%s); %d ranked\nchunks      %d\nsymbols     %d\n", st.Files, mb(st.Bytes), st.Ranked, st.Chunks, st.Symbols)
	fmt.Fprintf(w, "memory      %s\ncatalog     %s on disk\n", mb(st.MemoryBytes), mb(st.DiskBytes))
	if !st.UpdatedAt.IsZero() {
		fmt.Fprintf(w, "updated     %s\n", st.UpdatedAt.Format(time.RFC3339))
	}
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

func newIndexBuildCmd(o *options) *cobra.Command {
	var workspace string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Rebuild the workspace's code index from scratch (a new generation, swapped in when done)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, err := o.indexTarget(cmd.Context(), workspace)
			if err != nil {
				return err
			}
			bar := &buildBar{w: o.stderr, tty: isTTY(o.stderr)}
			var st index.Status
			if t.daemon {
				res, err := t.call(cmd.Context(), "index.build", map[string]any{}, func(method string, params json.RawMessage) {
					var p index.Progress
					if method == "index.progress" && json.Unmarshal(params, &p) == nil {
						bar.show(p)
					}
				})
				bar.done()
				if err != nil {
					return err
				}
				if err := json.Unmarshal(res, &st); err != nil {
					return err
				}
			} else {
				x, err := t.open(cmd.Context())
				if err != nil {
					return err
				}
				defer x.Close()
				err = x.Build(cmd.Context(), bar.show)
				bar.done()
				if err != nil {
					return err
				}
				st = x.Status()
			}
			if asJSON {
				return o.printJSON(st)
			}
			printIndexStatus(o.stdout, st, t.daemon)
			return nil
		},
	}
	cmd.Flags().StringVarP(&workspace, "workspace", "w", "", "the workspace: a directory in it, or its name (default: the current directory)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the final status as JSON")
	return cmd
}

// buildBar draws an index build's progress on a terminal: a countBar of
// files once the build has counted them.
type buildBar struct {
	w     io.Writer
	tty   bool
	bar   *countBar
	bytes int64 // read so far
}

func (b *buildBar) show(p index.Progress) {
	if p.Phase != "index" && p.Phase != "done" || p.Total <= 0 {
		return
	}
	if b.bar == nil {
		b.bar = newCountBar(b.w, b.tty, "indexing", int64(p.Total), func(n, total int64) string {
			return fmt.Sprintf("%d/%d files %s", n, total, mb(b.bytes))
		})
	}
	b.bytes = p.Bytes
	b.bar.set(int64(p.Files))
}

func (b *buildBar) done() { b.bar.done() }

func newIndexSearchCmd(o *options) *cobra.Command {
	var (
		workspace string
		asJSON    bool
		limit     int
		mode      string
		ignore    bool
	)
	cmd := &cobra.Command{
		Use:   "search [flags] QUERY...",
		Short: "Search the workspace's code index: ranked (default), literal, regex or symbol",
		Long: `Search the code index. QUERY is free text in the index's query language: words and
"quoted phrases", with filters file:GLOB -file:GLOB lang:NAME kind:KIND case:yes|no.
Ranked hits are definitions and chunks of code, best first; literal and regex hits are
one per matching line (the lines ripgrep prints: case-sensitive unless -i); symbol hits
are definitions by name. No hits: nothing on stdout, a note on stderr (without --json).
With --json each hit is one JSON object per line: path (relative to the workspace),
line, endLine (1-based), symbol, kind, score, preview (column for line hits).`,
		Example: `  warden index search "parse http header"
  warden index search --mode symbol ServeHTTP
  warden index search --mode regex --json 'func \w+\(ctx context\.Context'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch index.Mode(mode) {
			case index.ModeRanked, index.ModeLiteral, index.ModeRegex, index.ModeSymbol:
			default:
				return fmt.Errorf("--mode %q: want ranked, literal, regex or symbol", mode)
			}
			if limit < 0 {
				return fmt.Errorf("--limit must not be negative")
			}
			text := strings.Join(args, " ")
			// the query is checked here, so a mistake reads as one
			// (whoever answers it)
			q, err := index.ParseQuery(text)
			if err != nil {
				return err
			}
			q.Mode, q.Limit = index.Mode(mode), limit
			if q.Mode == index.ModeLiteral || q.Mode == index.ModeRegex {
				// ripgrep's lines: case-sensitive unless -i (or case:no)
				if !q.CaseSet {
					q.CaseSensitive = !ignore
				}
				if q.Mode == index.ModeRegex {
					if _, err := regexp.Compile(q.Text); err != nil {
						return fmt.Errorf("invalid regex %q: %w", q.Text, err)
					}
				}
			}
			t, err := o.indexTarget(cmd.Context(), workspace)
			if err != nil {
				return err
			}
			var hits []index.Hit
			if t.daemon {
				res, err := t.call(cmd.Context(), "index.search", map[string]any{"query": text, "mode": mode, "limit": limit, "caseSensitive": q.CaseSensitive}, nil)
				if err != nil {
					return err
				}
				var r struct {
					Hits []index.Hit `json:"hits"`
				}
				if err := json.Unmarshal(res, &r); err != nil {
					return err
				}
				hits = r.Hits
			} else {
				x, err := t.open(cmd.Context())
				if err != nil {
					return err
				}
				defer x.Close()
				if x.Status().Generation == "" {
					fmt.Fprintln(o.stderr, "no index yet: building it (warden index build)")
					bar := &buildBar{w: o.stderr, tty: isTTY(o.stderr)}
					err := x.Build(cmd.Context(), bar.show)
					bar.done()
					if err != nil {
						return err
					}
				}
				if hits, err = x.Search(cmd.Context(), q); err != nil {
					return err
				}
			}
			if len(hits) == 0 && !asJSON {
				fmt.Fprintf(o.stderr, "no hits for %q (%s) in %s\n", text, mode, t.root)
			}
			return printHits(o.stdout, hits, asJSON)
		},
	}
	cmd.Flags().StringVarP(&workspace, "workspace", "w", "", "the workspace: a directory in it, or its name (default: the current directory)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON object per hit, per line")
	cmd.Flags().IntVar(&limit, "limit", index.DefaultLimit, "how many hits")
	cmd.Flags().StringVar(&mode, "mode", string(index.ModeRanked), "ranked, literal, regex or symbol")
	cmd.Flags().BoolVarP(&ignore, "ignore-case", "i", false, "literal and regex: match case-insensitively (by default they match case, as ripgrep does; case:no in the query does the same)")
	return cmd
}

func printHits(w io.Writer, hits []index.Hit, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		for _, h := range hits {
			if err := enc.Encode(h); err != nil {
				return err
			}
		}
		return nil
	}
	for _, h := range hits {
		if h.Column > 0 {
			fmt.Fprintf(w, "%s:%d:%d:%s\n", h.Path, h.Line, h.Column, h.Preview)
			continue
		}
		sym := ""
		if h.Symbol != "" {
			sym = "  " + h.Kind + " " + h.Symbol
		}
		fmt.Fprintf(w, "%s:%d-%d%s  (%.3f)\n", h.Path, h.Line, h.EndLine, sym, h.Score)
		if h.Preview != "" {
			fmt.Fprintf(w, "    %s\n", h.Preview)
		}
	}
	return nil
}
