// Package core wires the event log, the bus, the policy, the approval queue
// and the session projection into the one place where a call is decided and
// recorded. Every door calls Gate for tool calls and Record for everything
// else; no door keeps state of its own.
package core

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/warden-dev/warden/internal/approval"
	"github.com/warden-dev/warden/internal/atomicfile"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/policy"
	"github.com/warden-dev/warden/internal/session"
	"github.com/warden-dev/warden/internal/store"
)

// DefaultApprovalTimeout is how long an "ask" waits for a person before the
// call is denied.
const DefaultApprovalTimeout = 120 * time.Second

// Config holds what New needs. Log and Policy are required.
type Config struct {
	// Log is the durable event log.
	Log store.Log
	// Policy decides calls.
	Policy *policy.Policy
	// ApprovalTimeout is the deadline of an "ask" (DefaultApprovalTimeout when 0).
	ApprovalTimeout time.Duration
	// OverlayPath is the file where rules added with "always" are kept; ""
	// disables "always".
	OverlayPath string
	// Now returns the current time (time.Now when nil).
	Now func() time.Time
	// NewID returns a fresh approval id (random when nil).
	NewID func() string
	// Logger receives operational logs (slog.Default when nil).
	Logger *slog.Logger
}

// Core is warden's one core. All methods are safe for concurrent use.
type Core struct {
	log       store.Log
	bus       *event.Bus
	sessions  *session.Tracker
	approvals *approval.Queue
	// askMu orders an asked call's approval.requested before anything that
	// claims the approval: the gate holds it from making the request
	// pending (so whoever learns of approval.requested, from the bus or the
	// log, finds it pending) until the event is durable; claim takes it.
	askMu sync.Mutex
	// timeout is the deadline of the asks to come, in nanoseconds
	// (SetApprovalTimeout changes it while calls run).
	timeout atomic.Int64
	now     func() time.Time
	newID   func() string
	logger  *slog.Logger

	pruneMu sync.Mutex // one prune at a time

	overlayPath string
	policyMu    sync.Mutex // serialises policy changes
	base        *policy.Policy
	overlay     []policy.Rule
	policy      atomic.Pointer[policy.Policy]
}

// SetApprovalTimeout sets how long the asks that come from now on wait for
// a person (d <= 0: DefaultApprovalTimeout); a call already waiting keeps
// its deadline. Safe while calls run (a SIGHUP reload).
func (c *Core) SetApprovalTimeout(d time.Duration) {
	if d <= 0 {
		d = DefaultApprovalTimeout
	}
	c.timeout.Store(int64(d))
}

// ApprovalTimeout is how long an ask made now waits for a person.
func (c *Core) ApprovalTimeout() time.Duration { return time.Duration(c.timeout.Load()) }

// New returns a core over cfg. It loads the overlay file if there is one.
func New(cfg Config) (*Core, error) {
	if cfg.Log == nil || cfg.Policy == nil {
		return nil, errors.New("core: Log and Policy are required")
	}
	c := &Core{
		log:         cfg.Log,
		approvals:   approval.NewQueue(),
		now:         cfg.Now,
		newID:       cfg.NewID,
		logger:      cfg.Logger,
		overlayPath: cfg.OverlayPath,
		base:        cfg.Policy,
	}
	c.SetApprovalTimeout(cfg.ApprovalTimeout)
	if c.now == nil {
		c.now = time.Now
	}
	if c.newID == nil {
		c.newID = randomID
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	read := func(ctx context.Context, after int64, limit int) ([]event.Event, error) {
		return c.log.Events(ctx, store.Filter{AfterID: after, Limit: limit})
	}
	c.bus = event.NewBus(read, 1024)
	c.sessions = session.NewTracker(read)
	if err := c.loadOverlay(); err != nil {
		return nil, err
	}
	return c, nil
}

func randomID() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return "ap_" + hex.EncodeToString(b[:])
}

// Bus returns the live event bus.
func (c *Core) Bus() *event.Bus { return c.bus }

// Sessions returns the session projection.
func (c *Core) Sessions() *session.Tracker { return c.sessions }

// Policy returns the policy in force (base plus overlay).
func (c *Core) Policy() *policy.Policy { return c.policy.Load() }

// Events reads the log.
func (c *Core) Events(ctx context.Context, f store.Filter) ([]event.Event, error) {
	return c.log.Events(ctx, f)
}

// LastID returns the id of the newest durable event.
func (c *Core) LastID(ctx context.Context) (int64, error) { return c.log.LastID(ctx) }

// Approvals lists the calls waiting for a person.
func (c *Core) Approvals() []approval.Request { return c.approvals.List() }

// Record makes events durable and only then publishes them on the bus. When
// it returns nil the events are on stable storage; on error nothing was
// recorded and nobody was told. A payload nested deeper than
// event.MaxDepth is refused (event.ErrTooDeep).
func (c *Core) Record(ctx context.Context, evs ...event.Event) ([]event.Event, error) {
	now := c.now().UTC()
	for i := range evs {
		// the doors refuse deeper bodies; this is the last line, so that no
		// reader of the log ever meets a payload it cannot decode
		if err := event.CheckDepth(evs[i].Data, event.MaxDepth); err != nil {
			return nil, fmt.Errorf("record %s: %w", evs[i].Type, err)
		}
		if evs[i].Time.IsZero() {
			evs[i].Time = now
		}
	}
	stored, err := c.log.Append(ctx, evs...)
	if err != nil {
		return nil, fmt.Errorf("record %d event(s): %w", len(evs), err)
	}
	c.bus.Publish(stored...)
	return stored, nil
}

// Start finishes what a previous run left open: approvals that were waiting
// when warden stopped are marked expired (their calls were blocked when the
// connection died), never silently approved.
//
// When the log was pruned, the session summaries it kept are loaded first,
// so pruned sessions are listed with their stats.
func (c *Core) Start(ctx context.Context) error {
	if m, ok := c.log.(store.Maintainer); ok {
		through, cp, err := m.Checkpoint(ctx)
		if err != nil {
			return fmt.Errorf("read the session summaries of pruned events: %w", err)
		}
		if cp != nil {
			if err := c.sessions.LoadCheckpoint(cp); err != nil {
				return fmt.Errorf("load the session summaries of events pruned through %d: %w", through, err)
			}
		}
	}
	evs, err := c.log.Events(ctx, store.Filter{Types: []event.Type{event.ApprovalRequested, event.ApprovalResolved}})
	if err != nil {
		return fmt.Errorf("read approvals: %w", err)
	}
	type open struct {
		e event.Event
		p event.ApprovalData
	}
	pending := map[string]open{}
	var order []string
	for _, e := range evs {
		p, err := event.DataOf[event.ApprovalData](e)
		if err != nil || p.ApprovalID == "" {
			continue
		}
		if e.Type == event.ApprovalRequested {
			pending[p.ApprovalID] = open{e, p}
			order = append(order, p.ApprovalID)
		} else {
			delete(pending, p.ApprovalID)
		}
	}
	for _, id := range order {
		o, ok := pending[id]
		if !ok {
			continue
		}
		res := approval.Resolution{Outcome: approval.Expired, Reason: "warden stopped before anyone decided; the call was blocked", By: "warden"}
		req := approval.Request{ID: id, Session: o.e.Session, Workspace: o.e.Workspace, Source: o.e.Source, CallID: o.p.CallID, Call: policy.Call{Tool: o.p.Tool}}
		if _, err := c.Record(ctx, c.resolutionEvents(req, res)...); err != nil {
			return fmt.Errorf("expire approval %s: %w", id, err)
		}
		c.logger.Info("expired approval left by a previous run", "approval", id, "session", o.e.Session)
	}
	return nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		// Only values built here are marshalled; a failure is a bug, and the
		// record must still be valid JSON.
		b, _ = json.Marshal(map[string]string{"marshalError": err.Error()})
	}
	return b
}

// loadOverlay reads the "always" rules and installs base+overlay.
func (c *Core) loadOverlay() error {
	p := c.base
	if c.overlayPath != "" {
		data, err := os.ReadFile(c.overlayPath)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return fmt.Errorf("read policy overlay %s: %w", c.overlayPath, err)
		default:
			rules, err := policy.ParseRules(data)
			if err != nil {
				return fmt.Errorf("policy overlay %s: %w", c.overlayPath, err)
			}
			c.overlay = rules
			if p, err = c.base.WithRules(rules...); err != nil {
				return fmt.Errorf("policy overlay %s: %w", c.overlayPath, err)
			}
		}
	}
	c.policy.Store(p)
	return nil
}

// SetPolicy replaces the base policy (the overlay stays on top).
func (c *Core) SetPolicy(p *policy.Policy) error {
	c.policyMu.Lock()
	defer c.policyMu.Unlock()
	combined, err := p.WithRules(c.overlay...)
	if err != nil {
		return fmt.Errorf("apply overlay: %w", err)
	}
	c.base = p
	c.policy.Store(combined)
	return nil
}

// addOverlayRule makes a standing rule durable in the overlay file, then
// puts it in force.
func (c *Core) addOverlayRule(r policy.Rule) error {
	if c.overlayPath == "" {
		return errors.New("no policy overlay file is configured")
	}
	c.policyMu.Lock()
	defer c.policyMu.Unlock()
	rules := append(append([]policy.Rule(nil), c.overlay...), r)
	combined, err := c.base.WithRules(rules...)
	if err != nil {
		return fmt.Errorf("add rule: %w", err)
	}
	data, err := policy.MarshalRules(rules)
	if err != nil {
		return fmt.Errorf("encode overlay: %w", err)
	}
	if err := atomicfile.Write(c.overlayPath, data, 0o600, 0o700); err != nil {
		return err
	}
	c.overlay = rules
	c.policy.Store(combined)
	return nil
}
