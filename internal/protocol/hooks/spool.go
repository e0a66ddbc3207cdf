package hooks

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/warden-dev/warden/internal/store"
)

// SpoolDirName is the spool's directory inside the data dir. `warden hook
// claude` writes a non-gating hook event there when it cannot reach the
// daemon; the daemon ingests it when it is back.
const SpoolDirName = "spool"

// rejectedDirName holds spooled files that can never be ingested (kept for
// a person to look at, not retried).
const rejectedDirName = "rejected"

// SpoolEntry is one spooled hook event: one file in the spool dir.
type SpoolEntry struct {
	// ID is unique per entry; it is recorded as data.spoolId so an entry is
	// ingested once even if warden stops between recording and deleting it.
	ID string `json:"spoolId"`
	// Time is when the hook fired; the recorded events keep it.
	Time time.Time `json:"time"`
	// Workspace is what the X-Workspace-Path header would have said.
	Workspace string `json:"workspace"`
	// Payload is the hook's JSON exactly as Claude Code gave it.
	Payload json.RawMessage `json:"payload"`
}

// WriteSpool writes one entry into dir atomically (a synced temp file
// renamed into place) and returns its path. It fills in ID and Time when
// they are empty. File names sort in the order the entries were written.
func WriteSpool(dir string, e SpoolEntry) (string, error) {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	if e.ID == "" {
		var b [8]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
		e.ID = fmt.Sprintf("%020d-%s", e.Time.UnixNano(), hex.EncodeToString(b[:]))
	}
	data, err := json.Marshal(e)
	if err != nil {
		return "", fmt.Errorf("encode spool entry: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create spool dir %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return "", fmt.Errorf("spool: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // a no-op once renamed
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", fmt.Errorf("spool: write %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return "", fmt.Errorf("spool: sync %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("spool: close %s: %w", tmp, err)
	}
	path := filepath.Join(dir, e.ID+".json")
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("spool: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // make the rename durable where the file system allows
		d.Close()
	}
	return path, nil
}

// Ingester moves spooled hook events into the log, oldest first, deleting
// each file only after its events are durable. An entry whose spoolId is
// already in the log (warden stopped between recording and deleting) is
// deleted without being recorded again: nothing lost, nothing duplicated.
type Ingester struct {
	h      *Handler
	dir    string
	logger *slog.Logger

	mu      sync.Mutex
	seen    map[string]bool // spool ids known to be in the log
	checked map[string]bool // sessions whose spool ids were read from the log
}

// NewIngester returns an ingester of the spool dir dir through h.
func NewIngester(h *Handler, dir string) *Ingester {
	return &Ingester{h: h, dir: dir, logger: h.logger, seen: map[string]bool{}, checked: map[string]bool{}}
}

// Run ingests now and then every interval until ctx ends.
func (in *Ingester) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if n, err := in.Ingest(ctx); err != nil {
			in.logger.Warn("hooks: spool ingestion stopped; will retry", "ingested", n, "err", err)
		} else if n > 0 {
			in.logger.Info("hooks: ingested spooled Claude Code events", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Ingest records every spooled entry in order and returns how many it
// recorded. It stops at the first entry it cannot record (the rest wait, so
// order is kept); entries that can never be recorded (malformed) are moved
// to the spool's rejected/ dir.
func (in *Ingester) Ingest(ctx context.Context) (int, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	ents, err := os.ReadDir(in.dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read spool %s: %w", in.dir, err)
	}
	var names []string
	for _, e := range ents {
		name := e.Name()
		if e.Type().IsRegular() && strings.HasPrefix(name, ".tmp-") {
			// A writer that died before its rename; give live writers time.
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > 10*time.Minute {
				_ = os.Remove(filepath.Join(in.dir, name))
			}
			continue
		}
		if e.Type().IsRegular() && strings.HasSuffix(name, ".json") && !strings.HasPrefix(name, ".") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	n := 0
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		recorded, err := in.one(ctx, filepath.Join(in.dir, name))
		if err != nil {
			return n, err
		}
		if recorded {
			n++
		}
	}
	return n, nil
}

// one ingests one file; recorded says whether events were appended.
func (in *Ingester) one(ctx context.Context, path string) (bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	e, p, ws, err := DecodeSpoolEntry(b)
	if err != nil {
		in.reject(path, err)
		return false, nil
	}
	evs := p.Events(ws, e.ID, e.Time)
	done, err := in.inLog(ctx, evs[0].Session, e.ID)
	if err != nil {
		return false, err
	}
	if !done {
		if _, err := in.h.core.Record(ctx, evs...); err != nil {
			return false, fmt.Errorf("record spooled %s: %w", filepath.Base(path), err)
		}
		in.seen[e.ID] = true
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		// Recorded but not deleted: the seen set skips it next time.
		return !done, fmt.Errorf("remove spooled %s: %w", path, err)
	}
	return !done, nil
}

// DecodeSpoolEntry parses and validates one spool file: the entry, its
// decoded hook payload and its workspace. PreToolUse is never spooled (it
// fails closed instead), so a spooled one is invalid.
func DecodeSpoolEntry(b []byte) (SpoolEntry, *Payload, string, error) {
	var e SpoolEntry
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&e); err != nil {
		return e, nil, "", fmt.Errorf("malformed spool entry: %w", err)
	}
	if e.ID == "" {
		return e, nil, "", errors.New("spool entry has no spoolId")
	}
	ws, err := Workspace(e.Workspace)
	if err != nil {
		return e, nil, "", err
	}
	p, err := Decode(e.Payload)
	if err != nil {
		return e, nil, "", err
	}
	if p.HookEventName == EventPreToolUse {
		return e, nil, "", errors.New("a PreToolUse is never spooled")
	}
	return e, p, ws, nil
}

// inLog reports whether an entry with this spool id is in the log. The
// first time a session is seen in this run, its recorded spool ids are read
// from the log; after that the ingester's own memory is complete, since it
// is the only writer of spool ids.
func (in *Ingester) inLog(ctx context.Context, session, id string) (bool, error) {
	if in.seen[id] {
		return true, nil
	}
	if in.checked[session] {
		return false, nil
	}
	evs, err := in.h.core.Events(ctx, store.Filter{Session: session})
	if err != nil {
		return false, fmt.Errorf("read session %s: %w", session, err)
	}
	for _, ev := range evs {
		var d struct {
			SpoolID string `json:"spoolId"`
		}
		if json.Unmarshal(ev.Data, &d) == nil && d.SpoolID != "" {
			in.seen[d.SpoolID] = true
		}
	}
	in.checked[session] = true
	return in.seen[id], nil
}

func (in *Ingester) reject(path string, why error) {
	dst := filepath.Join(in.dir, rejectedDirName, filepath.Base(path))
	in.logger.Warn("hooks: spooled event cannot be ingested; moved aside", "file", path, "to", dst, "err", why)
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err == nil {
		if err := os.Rename(path, dst); err == nil {
			return
		}
	}
	_ = os.Remove(path) // never block the queue on one bad file
}
