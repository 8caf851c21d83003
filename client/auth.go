package client

import (
	"context"
	"net/http"
)

// AuthService covers /auth/*.
type AuthService struct{ c *Client }

// Token is an access token answer.
type Token struct {
	Token    string `json:"token"`
	Type     string `json:"type"`
	Expires  int64  `json:"expires"` // ms since the epoch
	Username string `json:"username,omitempty"`
}

// Register creates an e-mail account and keeps its token in the client.
func (s *AuthService) Register(ctx context.Context, email, password, name, device string) (Token, error) {
	return s.tokenCall(ctx, "/auth/register", authNone, map[string]string{
		"apiKey": s.c.cfg.PublicKey, "email": email, "password": password, "name": name, "device": device})
}

// Login logs in with e-mail and password and keeps the token.
func (s *AuthService) Login(ctx context.Context, email, password, deviceID string) (Token, error) {
	return s.tokenCall(ctx, "/auth/login", authNone, map[string]string{
		"apiKey": s.c.cfg.PublicKey, "email": email, "password": password, "deviceId": deviceID})
}

// Anonymous logs in the user keyed by externalID (creating it on first
// call) and keeps the token. created reports which happened.
func (s *AuthService) Anonymous(ctx context.Context, externalID, device, name string) (tok Token, created bool, err error) {
	body, n, err := jsonBody(map[string]string{"externalId": externalID, "device": device, "name": name})
	if err != nil {
		return Token{}, false, err
	}
	resp, err := s.c.do(ctx, &request{method: http.MethodPost, path: "/auth/user", auth: authSigned,
		body: body, length: n, contentType: "application/json"})
	if err != nil {
		return Token{}, false, err
	}
	defer resp.Body.Close()
	if err := decodeBody(resp, &tok); err != nil {
		return Token{}, false, err
	}
	s.c.SetToken(tok.Token)
	return tok, resp.StatusCode == http.StatusCreated, nil
}

// Logout revokes the current token and forgets it.
func (s *AuthService) Logout(ctx context.Context) error {
	err := s.c.doJSON(ctx, &request{method: http.MethodPost, path: "/auth/logout", auth: authToken}, nil)
	if err == nil || IsCode(err, "TokenExpired") {
		s.c.SetToken("")
	}
	return err
}

func (s *AuthService) tokenCall(ctx context.Context, path string, auth authKind, in any) (Token, error) {
	body, n, err := jsonBody(in)
	if err != nil {
		return Token{}, err
	}
	var tok Token
	err = s.c.doJSON(ctx, &request{method: http.MethodPost, path: path, auth: auth, body: body, length: n,
		contentType: "application/json"}, &tok)
	if err != nil {
		return Token{}, err
	}
	s.c.SetToken(tok.Token)
	return tok, nil
}
