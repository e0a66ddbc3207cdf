// Package proof lets the clients of warden's agent doors (the Claude Code
// hook command and warden's OpenCode plugin) know they are talking to warden,
// and lets the hook door know it is talking to warden's hook command, without
// either side ever sending a secret.
//
// Answers: a client sends a fresh random nonce in the X-Warden-Nonce header.
// The daemon signs its answer with its Ed25519 key (DoorKeyName in the data
// dir, never leaving it) over the door's name, the nonce, the HTTP status and
// the exact body, and sends the signature in X-Warden-Proof. The client
// verifies it with the public key (DoorPubName, readable by anyone: it proves
// nothing on its own), so a process that took over a stopped daemon's port
// cannot answer in warden's name. A request without a nonce gets the plain
// answer, exactly as before (the monitor spec's clients).
//
// Requests: the hook command proves it knows the hook key (HookKeyName in the
// data dir) with an HMAC-SHA256 over the nonce, a timestamp, the workspace
// and the body (X-Warden-Auth); the key itself never travels. Each nonce is
// accepted once within the time window, so a captured request cannot be
// replayed.
package proof

import (
	"bytes"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/warden-dev/warden/internal/atomicfile"
)

// Header names of the exchange.
const (
	// NonceHeader carries the client's fresh nonce (request).
	NonceHeader = "X-Warden-Nonce"
	// ProofHeader carries the daemon's signature of its answer (response).
	ProofHeader = "X-Warden-Proof"
	// AuthHeader carries the hook command's HMAC of its request (request).
	AuthHeader = "X-Warden-Auth"
	// TimeHeader carries the Unix time (seconds) the hook command signed
	// its request at (request).
	TimeHeader = "X-Warden-Time"
)

// File names inside the data dir.
const (
	// DoorKeyName holds the daemon's Ed25519 private key (PKCS #8 PEM, 0600).
	DoorKeyName = "door.key"
	// DoorPubName holds its public key (PKIX PEM, 0644): what clients
	// verify answers with.
	DoorPubName = "door.pub"
	// HookKeyName holds the hook door's HMAC key (64 hex digits, 0600).
	HookKeyName = "hooks.key"
)

// Door names, part of every signed answer so an answer of one door is
// never valid for another.
const (
	DoorMonitor = "monitor"
	DoorHooks   = "hooks"
)

// MaxClockSkew is how far a signed request's time may be from the daemon's
// clock; nonces are remembered twice as long.
const MaxClockSkew = 5 * time.Minute

const (
	answerDomain  = "warden-proof-v1"
	requestDomain = "warden-hook-request-v1"
	nonceBytes    = 32
)

// NewNonce returns a fresh random nonce (32 bytes, base64url without padding).
func NewNonce() (string, error) {
	var b [nonceBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generate nonce: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// ValidNonce reports whether n has the shape of a nonce: 16 to 128
// characters of the base64url alphabet.
func ValidNonce(n string) bool {
	if len(n) < 16 || len(n) > 128 {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// AnswerMessage is what the daemon signs for an answer:
// "warden-proof-v1\n" door "\n" nonce "\n" status "\n" body.
func AnswerMessage(door, nonce string, status int, body []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(answerDomain) + len(door) + len(nonce) + 8 + len(body))
	b.WriteString(answerDomain)
	b.WriteByte('\n')
	b.WriteString(door)
	b.WriteByte('\n')
	b.WriteString(nonce)
	b.WriteByte('\n')
	b.WriteString(strconv.Itoa(status))
	b.WriteByte('\n')
	b.Write(body)
	return b.Bytes()
}

// Signer signs the daemon's answers.
type Signer struct {
	key ed25519.PrivateKey
}

// NewSigner returns a Signer over key.
func NewSigner(key ed25519.PrivateKey) *Signer { return &Signer{key: key} }

// Public returns the public key answers verify with.
func (s *Signer) Public() ed25519.PublicKey { return s.key.Public().(ed25519.PublicKey) }

// Sign returns the X-Warden-Proof value for an answer (base64 signature).
func (s *Signer) Sign(door, nonce string, status int, body []byte) string {
	return base64.StdEncoding.EncodeToString(ed25519.Sign(s.key, AnswerMessage(door, nonce, status, body)))
}

// ErrNoProof and ErrBadProof are what Verify reports for an answer that
// carries no proof, or one that does not verify.
var (
	ErrNoProof  = errors.New("its answer carries no proof of warden's key")
	ErrBadProof = errors.New("its answer's proof does not verify against warden's key")
)

// Verify checks the X-Warden-Proof value of an answer.
func Verify(pub ed25519.PublicKey, door, nonce string, status int, body []byte, header string) error {
	header = strings.TrimSpace(header)
	if header == "" {
		return ErrNoProof
	}
	sig, err := base64.StdEncoding.DecodeString(header)
	if err != nil || len(sig) != ed25519.SignatureSize || len(pub) != ed25519.PublicKeySize {
		return ErrBadProof
	}
	if !ed25519.Verify(pub, AnswerMessage(door, nonce, status, body), sig) {
		return ErrBadProof
	}
	return nil
}

// RequestMessage is what the hook command MACs:
// "warden-hook-request-v1\n" nonce "\n" unixTime "\n" workspace "\n" body.
func RequestMessage(nonce string, unix int64, workspace string, body []byte) []byte {
	var b bytes.Buffer
	b.WriteString(requestDomain)
	b.WriteByte('\n')
	b.WriteString(nonce)
	b.WriteByte('\n')
	b.WriteString(strconv.FormatInt(unix, 10))
	b.WriteByte('\n')
	b.WriteString(workspace)
	b.WriteByte('\n')
	b.Write(body)
	return b.Bytes()
}

// MAC returns the X-Warden-Auth value (hex HMAC-SHA256) of a hook request.
func MAC(key []byte, nonce string, unix int64, workspace string, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write(RequestMessage(nonce, unix, workspace, body))
	return hex.EncodeToString(m.Sum(nil))
}

// RequestVerifier checks hook requests: the MAC, the time window, and that
// no nonce is used twice.
type RequestVerifier struct {
	key []byte
	now func() time.Time

	mu   sync.Mutex
	seen map[string]time.Time // nonce → when it expires from memory
}

// maxRemembered bounds the replay memory; beyond it, requests are refused
// until old nonces expire (fail closed rather than forget).
const maxRemembered = 1 << 17

// NewRequestVerifier returns a verifier over the hook key.
func NewRequestVerifier(key []byte) *RequestVerifier {
	return &RequestVerifier{key: append([]byte(nil), key...), now: time.Now, seen: map[string]time.Time{}}
}

// Check verifies one request's headers against its workspace and body. The
// error says what is wrong, never anything about the key.
func (v *RequestVerifier) Check(nonce, unixText, auth, workspace string, body []byte) error {
	if len(v.key) == 0 {
		return errors.New("the hook door has no key (fail closed)")
	}
	if auth == "" || nonce == "" || unixText == "" {
		return fmt.Errorf("the request is not signed: send %s, %s and %s (warden hook claude does)", NonceHeader, TimeHeader, AuthHeader)
	}
	if !ValidNonce(nonce) {
		return fmt.Errorf("%s is not a nonce (16-128 base64url characters)", NonceHeader)
	}
	unix, err := strconv.ParseInt(unixText, 10, 64)
	if err != nil {
		return fmt.Errorf("%s is not a Unix time", TimeHeader)
	}
	got, err := hex.DecodeString(auth)
	if err != nil {
		return errors.New("the request's signature does not verify against warden's hook key")
	}
	m := hmac.New(sha256.New, v.key)
	m.Write(RequestMessage(nonce, unix, workspace, body))
	if !hmac.Equal(got, m.Sum(nil)) {
		return errors.New("the request's signature does not verify against warden's hook key")
	}
	now := v.now()
	if d := now.Sub(time.Unix(unix, 0)); d > MaxClockSkew || d < -MaxClockSkew {
		return fmt.Errorf("the request was signed %s away from warden's clock (more than %s)", d.Round(time.Second), MaxClockSkew)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if exp, ok := v.seen[nonce]; ok && now.Before(exp) {
		return errors.New("the request's nonce was already used (a replay)")
	}
	if len(v.seen) >= maxRemembered {
		for n, exp := range v.seen {
			if !now.Before(exp) {
				delete(v.seen, n)
			}
		}
		if len(v.seen) >= maxRemembered {
			return errors.New("too many signed requests in the last minutes; try again shortly")
		}
	}
	v.seen[nonce] = now.Add(2 * MaxClockSkew)
	return nil
}

// Keys are the daemon's secrets for the doors.
type Keys struct {
	// Signer signs answers.
	Signer *Signer
	// HookKey authenticates the hook command.
	HookKey []byte
}

// EnsureKeys loads the door keys from dataDir, creating any that is missing
// (private files 0600, the public key 0644).
func EnsureKeys(dataDir string) (Keys, error) {
	priv, err := ensureDoorKey(dataDir)
	if err != nil {
		return Keys{}, err
	}
	hk, err := ensureHookKey(filepath.Join(dataDir, HookKeyName))
	if err != nil {
		return Keys{}, err
	}
	return Keys{Signer: NewSigner(priv), HookKey: hk}, nil
}

func ensureDoorKey(dataDir string) (ed25519.PrivateKey, error) {
	path := filepath.Join(dataDir, DoorKeyName)
	var priv ed25519.PrivateKey
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		blk, _ := pem.Decode(b)
		if blk == nil {
			return nil, fmt.Errorf("%s is not a PEM private key (remove it to make a new one; then run warden install opencode again)", path)
		}
		k, err := x509.ParsePKCS8PrivateKey(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", path, err)
		}
		var ok bool
		if priv, ok = k.(ed25519.PrivateKey); !ok {
			return nil, fmt.Errorf("%s is not an Ed25519 key", path)
		}
		if err := fixMode(path); err != nil {
			return nil, err
		}
	case errors.Is(err, os.ErrNotExist):
		_, priv, err = ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("generate door key: %w", err)
		}
		der, err := x509.MarshalPKCS8PrivateKey(priv)
		if err != nil {
			return nil, fmt.Errorf("encode door key: %w", err)
		}
		if err := atomicfile.Write(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600, 0o700); err != nil {
			return nil, fmt.Errorf("write door key: %w", err)
		}
	default:
		return nil, fmt.Errorf("read door key: %w", err)
	}
	// The public half is rewritten whenever it is not the key's.
	pubPEM, err := PublicPEM(priv.Public().(ed25519.PublicKey))
	if err != nil {
		return nil, err
	}
	pubPath := filepath.Join(dataDir, DoorPubName)
	if old, err := os.ReadFile(pubPath); err != nil || !bytes.Equal(old, pubPEM) {
		if err := atomicfile.Write(pubPath, pubPEM, 0o644, 0o700); err != nil {
			return nil, fmt.Errorf("write door public key: %w", err)
		}
	}
	return priv, nil
}

func ensureHookKey(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		k, derr := hex.DecodeString(strings.TrimSpace(string(b)))
		if derr != nil || len(k) < 32 {
			return nil, fmt.Errorf("%s is not a hook key (64 hex digits); remove it to make a new one", path)
		}
		return k, fixMode(path)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read hook key: %w", err)
	}
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("generate hook key: %w", err)
	}
	if err := atomicfile.Write(path, []byte(hex.EncodeToString(k)+"\n"), 0o600, 0o700); err != nil {
		return nil, fmt.Errorf("write hook key: %w", err)
	}
	return k, nil
}

func fixMode(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(path, 0o600); err != nil {
			return fmt.Errorf("%s is readable by others and cannot be fixed: %w", path, err)
		}
	}
	return nil
}

// PublicPEM encodes a public key as PKIX PEM (what Node's
// crypto.createPublicKey reads).
func PublicPEM(pub ed25519.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("encode public key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

// ParsePublicPEM decodes a PKIX PEM Ed25519 public key.
func ParsePublicPEM(b []byte) (ed25519.PublicKey, error) {
	blk, _ := pem.Decode(b)
	if blk == nil || blk.Type != "PUBLIC KEY" {
		return nil, errors.New("not a PEM public key")
	}
	k, err := x509.ParsePKIXPublicKey(blk.Bytes)
	if err != nil {
		return nil, fmt.Errorf("parse public key: %w", err)
	}
	pub, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, errors.New("not an Ed25519 public key")
	}
	return pub, nil
}

// ReadPublic reads the door public key from dataDir.
func ReadPublic(dataDir string) (ed25519.PublicKey, error) {
	path := filepath.Join(dataDir, DoorPubName)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read warden's public key: %w", err)
	}
	pub, err := ParsePublicPEM(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return pub, nil
}

// ReadHookKey reads the hook key from dataDir (for the hook command).
func ReadHookKey(dataDir string) ([]byte, error) {
	path := filepath.Join(dataDir, HookKeyName)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read warden's hook key: %w", err)
	}
	k, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(k) < 32 {
		return nil, fmt.Errorf("%s is not a hook key", path)
	}
	return k, nil
}
