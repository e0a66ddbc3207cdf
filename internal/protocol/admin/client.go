package admin

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/warden-dev/warden/internal/approval"
	"github.com/warden-dev/warden/internal/credential"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/session"
)

// TokenName is the file name of the admin credential inside the data dir.
const TokenName = credential.AdminTokenFile

// ErrNotRunning means no daemon answers on the data dir's socket.
var ErrNotRunning = errors.New("warden is not running")

// Client talks to a running daemon through its data dir.
type Client struct {
	dataDir string
	token   string
	http    *http.Client
}

// Dial returns a client for the daemon whose data dir is dataDir. It fails
// with ErrNotRunning (wrapped, with what to do) when nothing answers.
func Dial(dataDir string) (*Client, error) {
	sock := filepath.Join(dataDir, SocketName)
	notRunning := fmt.Errorf("%w with data dir %s: start it with `warden serve` (or pass --data-dir)", ErrNotRunning, dataDir)
	if _, err := os.Stat(sock); err != nil {
		return nil, notRunning
	}
	tok, err := os.ReadFile(filepath.Join(dataDir, TokenName))
	if err != nil {
		return nil, fmt.Errorf("read token: %w", err)
	}
	c := &Client{
		dataDir: dataDir,
		token:   strings.TrimSpace(string(tok)),
		http: &http.Client{Transport: &http.Transport{
			DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				var d net.Dialer
				conn, err := d.DialContext(ctx, "unix", sock)
				if err != nil && (errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, os.ErrNotExist)) {
					return nil, notRunning
				}
				return conn, err
			},
		}},
	}
	return c, nil
}

func (c *Client) do(ctx context.Context, method, path string, body any, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, "http://warden"+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.http.Do(req)
	if err != nil {
		if errors.Is(err, ErrNotRunning) {
			return ErrNotRunningFrom(err)
		}
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	return decode(resp, out)
}

// ErrNotRunningFrom unwraps a transport error down to the not-running error.
func ErrNotRunningFrom(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		var oe *net.OpError
		if errors.As(ue.Err, &oe) {
			return oe.Err
		}
		return ue.Err
	}
	return err
}

func decode(resp *http.Response, out any) error {
	if resp.StatusCode/100 != 2 {
		var e Error
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if json.Unmarshal(b, &e) == nil && e.Error != "" {
			return errors.New(e.Error)
		}
		return fmt.Errorf("daemon answered %s", resp.Status)
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// Status returns the daemon's status.
func (c *Client) Status(ctx context.Context) (Status, error) {
	var s Status
	err := c.do(ctx, "GET", "/v1/status", nil, &s)
	return s, err
}

// Sessions lists sessions, most recent first.
func (c *Client) Sessions(ctx context.Context) ([]session.Session, error) {
	var s []session.Session
	err := c.do(ctx, "GET", "/v1/sessions", nil, &s)
	return s, err
}

// Session returns one session.
func (c *Client) Session(ctx context.Context, id string) (session.Session, error) {
	var s session.Session
	err := c.do(ctx, "GET", "/v1/sessions/"+url.PathEscape(id), nil, &s)
	return s, err
}

// Approvals lists pending approvals.
func (c *Client) Approvals(ctx context.Context) ([]approval.Request, error) {
	var a []approval.Request
	err := c.do(ctx, "GET", "/v1/approvals", nil, &a)
	return a, err
}

// ResolveResult is the answer to Resolve.
type ResolveResult struct {
	Approval approval.Request `json:"approval"`
	Warning  string           `json:"warning,omitempty"`
}

// Resolve approves or denies a pending approval.
func (c *Client) Resolve(ctx context.Context, id string, r ResolveRequest) (ResolveResult, error) {
	var out ResolveResult
	err := c.do(ctx, "POST", "/v1/approvals/"+url.PathEscape(id), r, &out)
	return out, err
}

// EventsQuery selects events; see GET /v1/events.
type EventsQuery struct {
	// Session restricts to one session; Since is then its seq.
	Session string
	// Since returns events after this id (or the session's seq).
	Since int64
	// After returns events at or after this time (zero: any).
	After time.Time
	// Types are event types; "tool.*" selects a family.
	Types []string
	// Decisions select tool.decision events with these decisions.
	Decisions []string
	// Limit caps the backlog at its first Limit events (0: no cap).
	Limit int
	// Last sends only the newest Last events of the backlog (0: all).
	Last int
	// Follow keeps streaming live events.
	Follow bool
}

// EventsInfo is what the daemon says about a backlog besides its events.
type EventsInfo struct {
	// Omitted is how many selected events Last left out.
	Omitted int
}

// Events streams events to fn until the backlog ends (or, with Follow,
// until ctx ends or fn returns an error).
func (c *Client) Events(ctx context.Context, q EventsQuery, fn func(event.Event) error) error {
	var info EventsInfo
	return c.EventsWithInfo(ctx, q, &info, fn)
}

// EventsWithInfo is Events that also fills info with what the daemon says
// about the backlog, before fn sees the first event.
func (c *Client) EventsWithInfo(ctx context.Context, q EventsQuery, info *EventsInfo, fn func(event.Event) error) error {
	v := url.Values{}
	if !q.After.IsZero() {
		v.Set("after", q.After.UTC().Format(time.RFC3339Nano))
	}
	if len(q.Types) > 0 {
		v.Set("type", strings.Join(q.Types, ","))
	}
	if len(q.Decisions) > 0 {
		v.Set("decision", strings.Join(q.Decisions, ","))
	}
	if q.Last > 0 {
		v.Set("last", fmt.Sprint(q.Last))
	}
	if q.Session != "" {
		v.Set("session", q.Session)
	}
	if q.Since > 0 {
		v.Set("since", fmt.Sprint(q.Since))
	}
	if q.Limit > 0 {
		v.Set("limit", fmt.Sprint(q.Limit))
	}
	if q.Follow {
		v.Set("follow", "1")
	}
	req, err := http.NewRequestWithContext(ctx, "GET", "http://warden/v1/events?"+v.Encode(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.http.Do(req)
	if err != nil {
		if errors.Is(err, ErrNotRunning) {
			return ErrNotRunningFrom(err)
		}
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("events: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return decode(resp, nil)
	}
	info.Omitted, _ = strconv.Atoi(resp.Header.Get(OmittedHeader))
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var e event.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return fmt.Errorf("events: bad line from daemon: %w", err)
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("events: %w", err)
	}
	return nil
}

// ParseSince reads a --since value into q: a sequence number (Since), a
// duration back from now (10m, 2h, 3d) or an RFC 3339 time (After).
func (q *EventsQuery) ParseSince(s string, now time.Time) error {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return fmt.Errorf("--since %s: want a sequence number of 0 or more, a duration (10m, 2h, 3d) or a time", s)
		}
		q.Since = n
		return nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.ParseFloat(days, 64); err == nil && n >= 0 && n < 100*365 {
			q.After = now.Add(-time.Duration(n * 24 * float64(time.Hour)))
			return nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		q.After = now.Add(-d)
		return nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		q.After = t
		return nil
	}
	return fmt.Errorf("--since %q: want a duration (10m, 2h, 3d), an RFC 3339 time (2026-01-02T15:04:05Z) or a sequence number", s)
}
