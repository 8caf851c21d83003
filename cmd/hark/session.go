package main

import (
	"encoding/json"

	"github.com/google/uuid"

	"github.com/harkhq/hark/ui"
)

// sessionStore keeps the signed-in session and the anonymous id of one
// platform and workspace in the secrets store.
type sessionStore struct {
	sec secrets
	key string
}

func (s *sessionStore) Load() (ui.Session, bool, error) {
	v, ok, err := s.sec.Get("session:" + s.key)
	if err != nil || !ok {
		return ui.Session{}, false, err
	}
	var sess ui.Session
	if err := json.Unmarshal([]byte(v), &sess); err != nil || sess.Token == "" {
		return ui.Session{}, false, nil // unreadable: sign in again
	}
	return sess, true, nil
}

func (s *sessionStore) Save(sess ui.Session) error {
	b, err := json.Marshal(sess)
	if err != nil {
		return err
	}
	return s.sec.Set("session:"+s.key, string(b))
}

func (s *sessionStore) Clear() error { return s.sec.Delete("session:" + s.key) }

func (s *sessionStore) ExternalID() (string, error) {
	name := "external-id:" + s.key
	if v, ok, err := s.sec.Get(name); err != nil || ok {
		return v, err
	}
	id := "hark-" + uuid.NewString()
	return id, s.sec.Set(name, id)
}
