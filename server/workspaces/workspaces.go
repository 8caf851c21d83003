// Package workspaces keeps the client applications of harkd: each one a
// public API key and the private key that signs its requests (DECISIONS §2).
// The private key is stored as given, because verifying an HMAC needs it.
package workspaces

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/store"
)

var migrations = []string{
	`CREATE TABLE workspaces (
		id           INTEGER PRIMARY KEY,
		name         TEXT NOT NULL,
		public_key   TEXT NOT NULL UNIQUE,
		private_key  TEXT NOT NULL,
		registration INTEGER NOT NULL DEFAULT 1,
		created_ms   INTEGER NOT NULL DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER))
	)`,
}

// Workspace is one client application.
type Workspace struct {
	ID         int64  `json:"-"`
	Name       string `json:"name"`
	PublicKey  string `json:"publicKey"`
	PrivateKey string `json:"privateKey"`
	// RegistrationOpen false makes /auth/register answer 403.
	RegistrationOpen bool `json:"-"`
}

// Service stores workspaces. Keys are cached in memory: they are read on
// every signed request and change only when a workspace is created.
type Service struct {
	db    *sql.DB
	mu    sync.RWMutex
	cache map[string]Workspace
}

// New migrates the workspace tables.
func New(ctx context.Context, db *sql.DB) (*Service, error) {
	if err := store.Migrate(ctx, db, "workspaces", migrations); err != nil {
		return nil, err
	}
	return &Service{db: db, cache: make(map[string]Workspace)}, nil
}

// Create makes a workspace with fresh random keys.
func (s *Service) Create(ctx context.Context, name string) (Workspace, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Workspace{}, apierr.BadRequestf("a workspace needs a name")
	}
	pub := make([]byte, 12)
	priv := make([]byte, 32)
	rand.Read(pub)
	rand.Read(priv)
	return s.Ensure(ctx, name, "pk_"+hex.EncodeToString(pub), base64.RawURLEncoding.EncodeToString(priv))
}

// Ensure makes sure a workspace with these keys exists (harkd serve
// --public-key/--private-key). A public key already bound to another
// private key is refused rather than silently re-keyed.
func (s *Service) Ensure(ctx context.Context, name, publicKey, privateKey string) (Workspace, error) {
	if publicKey == "" || privateKey == "" {
		return Workspace{}, apierr.BadRequestf("both the public and the private key are required")
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO workspaces(name, public_key, private_key) VALUES(?, ?, ?)
		ON CONFLICT(public_key) DO NOTHING`, name, publicKey, privateKey)
	if err != nil {
		return Workspace{}, fmt.Errorf("create workspace: %w", err)
	}
	w, err := s.ByPublicKey(ctx, publicKey)
	if err != nil {
		return Workspace{}, err
	}
	if w.PrivateKey != privateKey {
		return Workspace{}, fmt.Errorf("workspace %s exists with another private key", publicKey)
	}
	return w, nil
}

// ByPublicKey finds a workspace; unknown keys answer 401 UnknownApiKey.
func (s *Service) ByPublicKey(ctx context.Context, publicKey string) (Workspace, error) {
	s.mu.RLock()
	w, ok := s.cache[publicKey]
	s.mu.RUnlock()
	if ok {
		return w, nil
	}
	var reg int
	err := s.db.QueryRowContext(ctx, `SELECT id, name, public_key, private_key, registration
		FROM workspaces WHERE public_key = ?`, publicKey).Scan(&w.ID, &w.Name, &w.PublicKey, &w.PrivateKey, &reg)
	if errors.Is(err, sql.ErrNoRows) {
		return Workspace{}, apierr.New(http.StatusUnauthorized, apierr.UnknownApiKey, "unknown API key")
	}
	if err != nil {
		return Workspace{}, fmt.Errorf("look up workspace: %w", err)
	}
	w.RegistrationOpen = reg != 0
	s.mu.Lock()
	s.cache[publicKey] = w
	s.mu.Unlock()
	return w, nil
}

// WorkspaceKey serves the signature middleware.
func (s *Service) WorkspaceKey(ctx context.Context, publicKey string) (int64, string, error) {
	w, err := s.ByPublicKey(ctx, publicKey)
	return w.ID, w.PrivateKey, err
}

// SetRegistration opens or closes e-mail registration for a workspace.
func (s *Service) SetRegistration(ctx context.Context, publicKey string, open bool) error {
	v := 0
	if open {
		v = 1
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE workspaces SET registration = ? WHERE public_key = ?`, v, publicKey); err != nil {
		return fmt.Errorf("set registration: %w", err)
	}
	s.mu.Lock()
	delete(s.cache, publicKey)
	s.mu.Unlock()
	return nil
}

// All lists the workspaces, oldest first.
func (s *Service) All(ctx context.Context) ([]Workspace, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, name, public_key, private_key, registration FROM workspaces ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Workspace
	for rows.Next() {
		var w Workspace
		var reg int
		if err := rows.Scan(&w.ID, &w.Name, &w.PublicKey, &w.PrivateKey, &reg); err != nil {
			return nil, err
		}
		w.RegistrationOpen = reg != 0
		out = append(out, w)
	}
	return out, rows.Err()
}

// RegistrationOpen tells whether /auth/register accepts new e-mails.
func (s *Service) RegistrationOpen(ctx context.Context, publicKey string) (bool, error) {
	w, err := s.ByPublicKey(ctx, publicKey)
	return w.RegistrationOpen, err
}
