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
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/store"
)

// SpoolDirName is the spool's directory inside the data dir. `warden hook
// claude` writes a non-gating hook event there when it cannot reach the
// daemon; the daemon ingests it when it is back.
const SpoolDirName = "spool"

// rejectedDirName holds spooled files that can never be ingested (kept for
// a person to look at, not retried).
const rejectedDirName = "rejected"

// The spool's bounds: WriteSpool refuses (ErrSpoolFull) an entry that would
// take the spool dir past MaxSpoolFiles files or MaxSpoolBytes bytes, so a
// daemon that stays down or a log that cannot write never fills the disk
// through the spool.
const (
	MaxSpoolFiles = 10000
	MaxSpoolBytes = 256 << 20
)

// ErrSpoolFull is WriteSpool's answer when the spool is at its bound.
var ErrSpoolFull = errors.New("the spool is full")

// The daemon's holdback bounds (Ingester.Hold): events the log could not
// take and the spool dir could not hold either (a full disk) wait in memory,
// up to DefaultMaxHeld entries and DefaultMaxHeldBytes bytes of payload;
// beyond that they are counted as dropped.
const (
	DefaultMaxHeld      = 4096
	DefaultMaxHeldBytes = 64 << 20
)

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
// It refuses with ErrSpoolFull when the spool is at its bound.
func WriteSpool(dir string, e SpoolEntry) (string, error) {
	e.fill()
	data, err := json.Marshal(e)
	if err != nil {
		return "", fmt.Errorf("encode spool entry: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create spool dir %s: %w", dir, err)
	}
	if files, size := spoolUsage(dir); files+1 > MaxSpoolFiles || size+int64(len(data)) > MaxSpoolBytes {
		return "", fmt.Errorf("spool %s holds %d files, %d bytes: %w", dir, files, size, ErrSpoolFull)
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

// fill gives e an ID and a time when it has none.
func (e *SpoolEntry) fill() {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	if e.ID == "" {
		var b [8]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
		e.ID = fmt.Sprintf("%020d-%s", e.Time.UnixNano(), hex.EncodeToString(b[:]))
	}
}

// spoolUsage counts the entries in dir and their bytes.
func spoolUsage(dir string) (files int, size int64) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil {
			files++
			size += fi.Size()
		}
	}
	return files, size
}

// Ingester moves spooled hook events into the log, oldest first, deleting
// each file only after its events are durable. An entry whose spoolId is
// already in the log (warden stopped between recording and deleting) is
// deleted without being recorded again: nothing lost, nothing duplicated.
//
// It is also the hook door's holdback (Hold): a non-gating event the log
// could not take is spooled, held in memory when the spool cannot take it
// either, or counted as dropped; Ingest records them once the log writes
// again, then one log.dropped event with the count.
type Ingester struct {
	h      *Handler
	dir    string
	logger *slog.Logger

	// MaxHeld and MaxHeldBytes bound the events held in memory (defaults
	// DefaultMaxHeld, DefaultMaxHeldBytes). Set them before use.
	MaxHeld      int
	MaxHeldBytes int

	mu      sync.Mutex
	seen    map[string]bool // spool ids known to be in the log
	checked map[string]bool // sessions whose spool ids were read from the log

	hmu       sync.Mutex // guards the holdback below; never held while recording
	held      []SpoolEntry
	heldBytes int
	drops     dropCount
}

// dropCount is what log.dropped reports.
type dropCount struct {
	total       int
	byHook      map[string]int
	first, last time.Time
	reason      string
}

// Held says what Hold did with an event.
type Held string

// Hold's outcomes.
const (
	HeldSpool   Held = "spool"   // written to the spool dir
	HeldMemory  Held = "memory"  // kept in the daemon's memory
	HeldDropped Held = "dropped" // neither: counted, reported by log.dropped
)

// NewIngester returns an ingester of the spool dir dir through h, and makes
// it h's holdback: from then on h hands it the non-gating events the log
// could not take.
func NewIngester(h *Handler, dir string) *Ingester {
	in := &Ingester{
		h: h, dir: dir, logger: h.logger, seen: map[string]bool{}, checked: map[string]bool{},
		MaxHeld: DefaultMaxHeld, MaxHeldBytes: DefaultMaxHeldBytes,
	}
	h.holdback = in
	return in
}

// Hold keeps a non-gating hook event the log could not take (why): in the
// spool dir when it can, else in memory within the bounds, else it counts it
// as dropped. Ingest records what is held, in order, once the log writes.
func (in *Ingester) Hold(ws, hook string, body []byte, why error) Held {
	e := SpoolEntry{Workspace: ws, Payload: slices.Clone(body)}
	e.fill()
	in.hmu.Lock()
	defer in.hmu.Unlock()
	if len(in.held) == 0 {
		// Nothing is waiting in memory, so the spool keeps the order.
		_, err := WriteSpool(in.dir, e)
		if err == nil {
			return HeldSpool
		}
		in.logger.Warn("hooks: could not spool an event the log refused", "hook", hook, "err", err)
	}
	if len(in.held) < in.MaxHeld && in.heldBytes+len(e.Payload) <= in.MaxHeldBytes {
		in.held = append(in.held, e)
		in.heldBytes += len(e.Payload)
		return HeldMemory
	}
	d := &in.drops
	if d.byHook == nil {
		d.byHook = map[string]int{}
	}
	if d.total == 0 {
		d.first = e.Time
	}
	d.total++
	d.byHook[hook]++
	d.last = e.Time
	d.reason = why.Error()
	in.logger.Error("hooks: event dropped: the log cannot write and the holdback is full; counted", "hook", hook, "dropped", d.total)
	return HeldDropped
}

// Pending returns how many events are held in memory and how many were
// dropped and not yet reported.
func (in *Ingester) Pending() (held, dropped int) {
	in.hmu.Lock()
	defer in.hmu.Unlock()
	return len(in.held), in.drops.total
}

// flushHeld records the events held in memory, oldest first, then the drop
// count; it stops at the first failure (the rest wait).
func (in *Ingester) flushHeld(ctx context.Context) (int, error) {
	n := 0
	for {
		in.hmu.Lock()
		if len(in.held) == 0 {
			in.hmu.Unlock()
			break
		}
		e := in.held[0]
		in.hmu.Unlock()
		b, err := json.Marshal(e)
		if err != nil {
			return n, fmt.Errorf("encode held event: %w", err)
		}
		recorded, err := in.record(ctx, b, "held event "+e.ID)
		if errors.Is(err, errUnusable) {
			in.logger.Warn("hooks: held event cannot be recorded; dropped", "err", err)
		} else if err != nil {
			return n, err
		}
		if recorded {
			n++
		}
		in.hmu.Lock()
		in.held = in.held[1:]
		in.heldBytes -= len(e.Payload)
		in.hmu.Unlock()
	}
	in.hmu.Lock()
	d := in.drops
	d.byHook = maps.Clone(d.byHook)
	in.hmu.Unlock()
	if d.total == 0 {
		return n, nil
	}
	data, err := json.Marshal(map[string]any{
		"dropped": d.total, "byHook": d.byHook, "source": Source,
		"first": d.first, "last": d.last, "reason": d.reason,
	})
	if err != nil {
		return n, fmt.Errorf("encode drop count: %w", err)
	}
	if _, err := in.h.core.Record(ctx, event.Event{Session: event.SystemSession, Type: event.LogDropped, Source: Source, Data: data}); err != nil {
		return n, fmt.Errorf("record the count of dropped events: %w", err)
	}
	in.logger.Warn("hooks: recorded the count of events dropped while the log could not write", "dropped", d.total)
	in.hmu.Lock()
	in.drops.total -= d.total
	for k, v := range d.byHook {
		in.drops.byHook[k] -= v
		if in.drops.byHook[k] == 0 {
			delete(in.drops.byHook, k)
		}
	}
	in.hmu.Unlock()
	return n, nil
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
			in.finish(ctx)
			return
		case <-t.C:
		}
	}
}

// finishTimeout bounds the last ingest when Run stops.
const finishTimeout = 5 * time.Second

// finish runs when Run stops (the daemon shuts down, its log still open):
// one last ingest, then the events still held in memory go to the spool
// dir, where the next start finds them, when it can take them now.
func (in *Ingester) finish(ctx context.Context) {
	if held, dropped := in.Pending(); held == 0 && dropped == 0 {
		return
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finishTimeout)
	defer cancel()
	if _, err := in.Ingest(fctx); err == nil {
		return
	}
	in.hmu.Lock()
	defer in.hmu.Unlock()
	spilled := 0
	for len(in.held) > 0 {
		if _, err := WriteSpool(in.dir, in.held[0]); err != nil {
			break
		}
		in.heldBytes -= len(in.held[0].Payload)
		in.held = in.held[1:]
		spilled++
	}
	if spilled > 0 {
		in.logger.Info("hooks: events held in memory written to the spool for the next start", "count", spilled)
	}
	if len(in.held) > 0 || in.drops.total > 0 {
		in.logger.Error("hooks: stopping with events the log could not take and the spool cannot hold: lost",
			"held", len(in.held), "dropped", in.drops.total)
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
	m, err := in.flushHeld(ctx)
	return n + m, err
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
	recorded, err := in.record(ctx, b, "spooled "+filepath.Base(path))
	if errors.Is(err, errUnusable) {
		in.reject(path, err)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		// Recorded but not deleted: the seen set skips it next time.
		return recorded, fmt.Errorf("remove spooled %s: %w", path, err)
	}
	return recorded, nil
}

// errUnusable marks an entry that can never be recorded.
var errUnusable = errors.New("unusable spool entry")

// record records one encoded entry unless its spool id is in the log
// already; recorded says whether it appended. An entry that can never be
// recorded fails with errUnusable.
func (in *Ingester) record(ctx context.Context, b []byte, what string) (recorded bool, err error) {
	e, p, ws, err := DecodeSpoolEntry(b)
	if err != nil {
		return false, fmt.Errorf("%w: %w", errUnusable, err)
	}
	evs := p.Events(ws, e.ID, e.Time)
	done, err := in.inLog(ctx, evs[0].Session, e.ID)
	if err != nil {
		return false, err
	}
	if done {
		return false, nil
	}
	if _, err := in.h.core.Record(ctx, evs...); err != nil {
		return false, fmt.Errorf("record %s: %w", what, err)
	}
	in.seen[e.ID] = true
	return true, nil
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
