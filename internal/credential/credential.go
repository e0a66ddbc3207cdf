// Package credential holds warden's two kinds of credential and checks
// them for every door:
//
//   - the admin credential: the token in <data-dir>/token (mode 0600). It
//     opens the admin socket, the control door, approvals, policy changes
//     and the MCP door for any registered workspace, and never leaves the
//     data dir: no agent's environment and no generated config holds it.
//     The Agent API door refuses it: its clients (`warden chat` too) use a
//     scoped credential, so the admin token never has to cross a TCP port;
//   - scoped agent credentials: one per workspace and agent type, minted
//     when warden writes an agent's config (or for an Agent API client,
//     agent type AgentAPIClient). Each opens only the MCP door and the
//     Agent API door, and only for its own workspace. They are stored hashed (SHA-256) in
//     <data-dir>/credentials.json with their id, workspace, agent and
//     creation time, and can be revoked; a revocation holds from the next
//     request on.
//
// A scoped credential's secret is derived from its id with HMAC-SHA256 keyed
// by the admin token, so warden can write the same credential into an
// agent's config again (a restarted server, a second `warden run claude`)
// without storing the secret itself; only its hash is on disk. Doors check
// a presented token with Verifier.Verify, in constant time.
package credential

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
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

	"github.com/warden-dev/warden/internal/atomicfile"
	"github.com/warden-dev/warden/internal/event"
)

// File names inside the data dir.
const (
	// AdminTokenFile holds the admin token (mode 0600).
	AdminTokenFile = "token"
	// FileName holds the scoped credentials, hashed (mode 0600).
	FileName = "credentials.json"
)

// Source is the event source of credential records.
const Source = "warden/credentials"

// AgentPrefix starts every scoped agent credential:
// "wardenagent_<id>_<secret>".
const AgentPrefix = "wardenagent_"

// Kind is the kind of a credential.
type Kind string

// The two kinds of credential.
const (
	// Admin is the data dir's token: everything.
	Admin Kind = "admin"
	// Agent is a scoped agent credential: the MCP and Agent API doors,
	// one workspace.
	Agent Kind = "agent"
)

// AgentAPIClient is the agent type of the scoped credential a client of
// the Agent API door (`warden chat`) asks the admin socket for: the door
// takes only scoped credentials, and this one, like every scoped
// credential, resolves no approval and opens no admin method.
const AgentAPIClient = "warden-chat"

// Errors of Verify, Mint and Revoke.
var (
	// ErrMissing means no credential was presented.
	ErrMissing = errors.New("no credential")
	// ErrUnknown means the credential is not one warden issued.
	ErrUnknown = errors.New("unknown credential")
	// ErrRevoked means the credential was revoked.
	ErrRevoked = errors.New("credential revoked")
	// ErrNotFound means no credential has the id.
	ErrNotFound = errors.New("no such credential")
)

// Principal is who a verified credential speaks for.
type Principal struct {
	// Kind is Admin or Agent.
	Kind Kind
	// ID is the scoped credential's id ("" for the admin).
	ID string
	// Workspace and Agent are the scoped credential's workspace root and
	// agent type ("" for the admin).
	Workspace string
	Agent     string
}

// IsAdmin reports whether p is the admin.
func (p Principal) IsAdmin() bool { return p.Kind == Admin }

// String names p for logs and errors.
func (p Principal) String() string {
	if p.IsAdmin() {
		return "admin"
	}
	return fmt.Sprintf("agent credential %s (%s, workspace %s)", p.ID, p.Agent, p.Workspace)
}

// Verifier checks a presented token. Every door that takes a credential
// uses one.
type Verifier interface {
	// Verify returns who token speaks for, or ErrMissing, ErrUnknown or
	// ErrRevoked (wrapped).
	Verify(token string) (Principal, error)
}

// Credential is a scoped agent credential as listed: never its secret.
type Credential struct {
	ID        string    `json:"id"`
	Workspace string    `json:"workspace"`
	Agent     string    `json:"agent"`
	Created   time.Time `json:"created"`
	// Revoked is when it was revoked; nil while it is valid.
	Revoked *time.Time `json:"revoked,omitempty"`
}

// Active reports whether c is not revoked.
func (c Credential) Active() bool { return c.Revoked == nil }

// record is a credential as stored: with the hash of its token.
type record struct {
	Credential
	// Hash is "sha256:" and the hex SHA-256 of the whole token.
	Hash string `json:"hash"`
}

// file is the credentials file.
type file struct {
	Version     int      `json:"version"`
	Credentials []record `json:"credentials"`
}

// fileVersion is the credentials file's format version.
const fileVersion = 1

// Options configure Open.
type Options struct {
	// Dir is the data dir (created 0700 when missing). Required.
	Dir string
	// Record, when set, makes each mint and revocation an event (session
	// event.SystemSession); a mint whose record fails is undone.
	Record func(ctx context.Context, evs ...event.Event) ([]event.Event, error)
	// Logger receives operational records; nil discards them.
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Store holds the admin token and the scoped credentials of one data dir.
// Only the daemon (which holds the data dir's lock) opens it; its methods
// are safe for concurrent use.
type Store struct {
	opts      Options
	log       *slog.Logger
	admin     string
	adminHash [sha256.Size]byte

	mu    sync.RWMutex
	creds map[string]*record // by id
}

var _ Verifier = (*Store)(nil)

// Open reads (creating on first run) the data dir's admin token and its
// credentials file.
func Open(opts Options) (*Store, error) {
	if opts.Dir == "" {
		return nil, errors.New("credential: Options.Dir is required")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("create data dir: %w", err)
	}
	tok, err := EnsureAdminToken(filepath.Join(opts.Dir, AdminTokenFile))
	if err != nil {
		return nil, err
	}
	s := &Store{opts: opts, log: log, admin: tok, adminHash: sha256.Sum256([]byte(tok)), creds: map[string]*record{}}
	path := s.path()
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", path, err)
	default:
		recs, err := parse(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w (move it away to start with no agent credentials; agents get new ones when restarted)", path, err)
		}
		for i := range recs {
			s.creds[recs[i].ID] = &recs[i]
		}
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(path, 0o600); err != nil {
				return nil, fmt.Errorf("%s is readable by others and cannot be fixed: %w", path, err)
			}
		}
	}
	return s, nil
}

func (s *Store) path() string { return filepath.Join(s.opts.Dir, FileName) }

// EnsureAdminToken reads the admin token at path, creating it (32 random
// bytes, hex, mode 0600) on first run and tightening a looser mode.
func EnsureAdminToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		if tok := strings.TrimSpace(string(b)); tok != "" {
			if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
				if err := os.Chmod(path, 0o600); err != nil {
					return "", fmt.Errorf("token %s is readable by others and cannot be fixed: %w", path, err)
				}
			}
			return tok, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read token: %w", err)
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("generate token: %w", err)
	}
	tok := hex.EncodeToString(raw[:])
	if err := atomicfile.Write(path, []byte(tok+"\n"), 0o600, 0o700); err != nil {
		return "", fmt.Errorf("write token: %w", err)
	}
	return tok, nil
}

// AdminToken returns the admin token, for the doors configured with it
// directly (the control door's challenge) and for tests.
func (s *Store) AdminToken() string { return s.admin }

// Verify implements Verifier. The admin token and the credential's hash
// are compared in constant time; a revoked credential is ErrRevoked.
func (s *Store) Verify(token string) (Principal, error) {
	if token == "" {
		return Principal{}, ErrMissing
	}
	sum := sha256.Sum256([]byte(token))
	if subtle.ConstantTimeCompare(sum[:], s.adminHash[:]) == 1 {
		return Principal{Kind: Admin}, nil
	}
	id, ok := idOf(token)
	if !ok {
		return Principal{}, ErrUnknown
	}
	s.mu.RLock()
	r, found := s.creds[id]
	var rec record
	if found {
		rec = *r
	}
	s.mu.RUnlock()
	if !found {
		return Principal{}, ErrUnknown
	}
	want, err := hex.DecodeString(strings.TrimPrefix(rec.Hash, "sha256:"))
	if err != nil || subtle.ConstantTimeCompare(sum[:], want) != 1 {
		return Principal{}, ErrUnknown
	}
	if !rec.Active() {
		return Principal{}, fmt.Errorf("%w: %s was revoked at %s", ErrRevoked, rec.ID, rec.Revoked.Format(time.RFC3339))
	}
	return Principal{Kind: Agent, ID: rec.ID, Workspace: rec.Workspace, Agent: rec.Agent}, nil
}

// idOf parses the id out of a scoped credential.
func idOf(token string) (string, bool) {
	rest, ok := strings.CutPrefix(token, AgentPrefix)
	if !ok {
		return "", false
	}
	id, _, ok := strings.Cut(rest, "_")
	return id, ok && validID(id)
}

// Minted is the answer of Mint.
type Minted struct {
	Credential Credential `json:"credential"`
	// Token is the secret to write into the agent's config.
	Token string `json:"token"`
	// New is false when the workspace's agent already had a valid one.
	New bool `json:"new"`
}

// Mint returns the valid scoped credential of workspace's agent, making
// one (recorded as credential.minted) when there is none. workspace must
// be a registered workspace root; agent is the agent type.
func (s *Store) Mint(ctx context.Context, workspace, agent string) (Minted, error) {
	if workspace == "" || !filepath.IsAbs(workspace) {
		return Minted{}, fmt.Errorf("mint credential: workspace %q is not an absolute path", workspace)
	}
	if agent == "" {
		return Minted{}, errors.New("mint credential: no agent type")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var stale []*record
	for _, r := range s.sortedLocked() {
		if !r.Active() || r.Workspace != workspace || r.Agent != agent {
			continue
		}
		tok := s.secret(r.ID)
		if r.Hash == hashOf(tok) {
			return Minted{Credential: r.Credential, Token: tok}, nil
		}
		// Derived under another admin token: it can never verify again.
		stale = append(stale, r)
	}
	now := s.opts.Now().UTC()
	for _, r := range stale {
		t := now
		r.Revoked = &t
		s.log.Warn("revoked an agent credential minted under an earlier admin token", "id", r.ID, "workspace", r.Workspace, "agent", r.Agent)
	}
	id, err := newID()
	if err != nil {
		return Minted{}, err
	}
	tok := s.secret(id)
	r := &record{Credential: Credential{ID: id, Workspace: workspace, Agent: agent, Created: now}, Hash: hashOf(tok)}
	s.creds[id] = r
	if err := s.saveLocked(); err != nil {
		delete(s.creds, id)
		return Minted{}, fmt.Errorf("mint credential: %w", err)
	}
	if err := s.record(ctx, event.CredentialMinted, r.Credential); err != nil {
		// No credential without its record: undo it.
		delete(s.creds, id)
		if serr := s.saveLocked(); serr != nil {
			s.log.Error("could not undo an unrecorded credential", "id", id, "err", serr)
		}
		return Minted{}, fmt.Errorf("mint credential: record it: %w", err)
	}
	for _, r := range stale {
		if err := s.record(ctx, event.CredentialRevoked, r.Credential); err != nil {
			s.log.Warn("could not record the revocation of a stale agent credential", "id", r.ID, "err", err)
		}
	}
	s.log.Info("minted an agent credential", "id", id, "workspace", workspace, "agent", agent)
	return Minted{Credential: r.Credential, Token: tok, New: true}, nil
}

// Revoke revokes the credential id at once (recorded as
// credential.revoked). Revoking a revoked credential changes nothing and
// returns it. When the revocation holds but its record failed, the error
// says so and the credential is returned.
func (s *Store) Revoke(ctx context.Context, id string) (Credential, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.creds[id]
	if !ok {
		return Credential{}, fmt.Errorf("%w: %q (list them with: warden credentials)", ErrNotFound, id)
	}
	if !r.Active() {
		return r.Credential, nil
	}
	now := s.opts.Now().UTC()
	r.Revoked = &now
	if err := s.saveLocked(); err != nil {
		// In memory it is revoked already: refused from now on, even if
		// the file could not say so.
		return r.Credential, fmt.Errorf("revoke %s: it is refused until warden restarts, but the file could not be written: %w", id, err)
	}
	if err := s.record(ctx, event.CredentialRevoked, r.Credential); err != nil {
		return r.Credential, fmt.Errorf("revoked %s, but could not record it: %w", id, err)
	}
	s.log.Info("revoked an agent credential", "id", id, "workspace", r.Workspace, "agent", r.Agent)
	return r.Credential, nil
}

// RevokeWorkspace revokes every valid credential of workspace (it is no
// longer registered, so a later registration of the same path starts with
// none), each recorded as credential.revoked, and returns them.
func (s *Store) RevokeWorkspace(ctx context.Context, workspace string) ([]Credential, error) {
	s.mu.RLock()
	var ids []string
	for _, r := range s.sortedLocked() {
		if r.Active() && r.Workspace == workspace {
			ids = append(ids, r.ID)
		}
	}
	s.mu.RUnlock()
	var (
		out  []Credential
		errs []error
	)
	for _, id := range ids {
		c, err := s.Revoke(ctx, id)
		if c.ID != "" {
			out = append(out, c)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}

// List returns every scoped credential (revoked ones too), oldest first.
func (s *Store) List() []Credential {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []Credential{}
	for _, r := range s.sortedLocked() {
		out = append(out, r.Credential)
	}
	return out
}

func (s *Store) sortedLocked() []*record {
	list := make([]*record, 0, len(s.creds))
	for _, r := range s.creds {
		list = append(list, r)
	}
	slices.SortFunc(list, func(a, b *record) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return list
}

func (s *Store) saveLocked() error {
	f := file{Version: fileVersion, Credentials: []record{}}
	for _, r := range s.sortedLocked() {
		f.Credentials = append(f.Credentials, *r)
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encode credentials: %w", err)
	}
	return atomicfile.Write(s.path(), append(b, '\n'), 0o600, 0o700)
}

func (s *Store) record(ctx context.Context, t event.Type, c Credential) error {
	if s.opts.Record == nil {
		return nil
	}
	data, err := event.Encode(event.CredentialData{ID: c.ID, Workspace: c.Workspace, Agent: c.Agent})
	if err != nil {
		return err
	}
	_, err = s.opts.Record(ctx, event.Event{Session: event.SystemSession, Type: t, Source: Source, Workspace: c.Workspace, Data: data})
	return err
}

// secret derives the token of credential id from the admin token.
func (s *Store) secret(id string) string {
	m := hmac.New(sha256.New, []byte(s.admin))
	m.Write([]byte("warden agent credential v1\x00" + id))
	return AgentPrefix + id + "_" + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func hashOf(token string) string {
	sum := sha256.Sum256([]byte(token))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// newID returns a random credential id: 12 lower-case hex digits.
func newID() (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("credential id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

func validID(id string) bool {
	if len(id) < 1 || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'z') {
			return false
		}
	}
	return true
}

// parse decodes a credentials file and checks every record: a known
// version, valid and unique ids, absolute workspaces, an agent type, a
// creation time and a well-formed SHA-256 hash. Unknown fields are refused.
func parse(b []byte) ([]record, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f file
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("decode credentials: %w", err)
	}
	if dec.More() {
		return nil, errors.New("decode credentials: data after the JSON object")
	}
	if f.Version != fileVersion {
		return nil, fmt.Errorf("credentials file version %d; this warden reads version %d", f.Version, fileVersion)
	}
	seen := map[string]bool{}
	for i, r := range f.Credentials {
		switch {
		case !validID(r.ID):
			return nil, fmt.Errorf("credential %d: bad id %q", i, r.ID)
		case seen[r.ID]:
			return nil, fmt.Errorf("credential %d: id %q appears twice", i, r.ID)
		case !filepath.IsAbs(r.Workspace):
			return nil, fmt.Errorf("credential %s: workspace %q is not an absolute path", r.ID, r.Workspace)
		case r.Agent == "":
			return nil, fmt.Errorf("credential %s: no agent type", r.ID)
		case r.Created.IsZero():
			return nil, fmt.Errorf("credential %s: no creation time", r.ID)
		case !validHash(r.Hash):
			return nil, fmt.Errorf("credential %s: hash must be sha256: and 64 hex digits", r.ID)
		}
		seen[r.ID] = true
	}
	return f.Credentials, nil
}

func validHash(h string) bool {
	hx, ok := strings.CutPrefix(h, "sha256:")
	if !ok || len(hx) != 2*sha256.Size {
		return false
	}
	_, err := hex.DecodeString(hx)
	return err == nil
}

// adminOnly is a Verifier that knows only an admin token.
type adminOnly [sha256.Size]byte

// AdminOnly returns a Verifier that accepts exactly token, as the admin
// (for doors and tests configured with a single token).
func AdminOnly(token string) Verifier { return adminOnly(sha256.Sum256([]byte(token))) }

// Verify implements Verifier.
func (a adminOnly) Verify(token string) (Principal, error) {
	if token == "" {
		return Principal{}, ErrMissing
	}
	sum := sha256.Sum256([]byte(token))
	if subtle.ConstantTimeCompare(sum[:], a[:]) != 1 {
		return Principal{}, ErrUnknown
	}
	return Principal{Kind: Admin}, nil
}

// Bearer returns the token of an "Authorization: Bearer <token>" header
// value (the scheme is case-insensitive); "" when there is none.
func Bearer(header string) string {
	const prefix = "bearer "
	if len(header) < len(prefix) || !strings.EqualFold(header[:len(prefix)], prefix) {
		return ""
	}
	return strings.TrimSpace(header[len(prefix):])
}
