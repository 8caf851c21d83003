package endpoints

import (
	"net/http"

	"github.com/harkhq/hark/server/accounts"
	"github.com/harkhq/hark/server/httpapi"
)

// Accounts registers /auth/*. Registration and login take credentials
// from anyone and hash a password, so they are limited per client address
// too; logout and /auth/user are authenticated and fall under the limits
// per workspace and user.
func Accounts(api *httpapi.API, svc *accounts.Service) {
	api.Handle("POST /v2/auth/register", httpapi.Public, func(w http.ResponseWriter, r *http.Request) error {
		var req accounts.RegisterRequest
		if err := httpapi.DecodeJSON(r, api.MaxJSONBody(), &req); err != nil {
			return err
		}
		tok, err := svc.Register(r.Context(), req)
		if err != nil {
			return err
		}
		return httpapi.WriteJSON(w, http.StatusCreated, tok)
	}, httpapi.Credentials)
	api.Handle("POST /v2/auth/login", httpapi.Public, func(w http.ResponseWriter, r *http.Request) error {
		var req accounts.LoginRequest
		if err := httpapi.DecodeJSON(r, api.MaxJSONBody(), &req); err != nil {
			return err
		}
		tok, err := svc.Login(r.Context(), req)
		if err != nil {
			return err
		}
		tok.Username = "" // login answers token, type and expires only
		return httpapi.WriteJSON(w, http.StatusOK, tok)
	}, httpapi.Credentials)
	api.Handle("POST /v2/auth/logout", httpapi.Token, func(w http.ResponseWriter, r *http.Request) error {
		if err := svc.Logout(r.Context(), httpapi.AccessToken(r)); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	})
	api.Handle("POST /v2/auth/user", httpapi.Signed, func(w http.ResponseWriter, r *http.Request) error {
		var req accounts.AnonymousRequest
		if err := httpapi.DecodeJSON(r, api.MaxJSONBody(), &req); err != nil {
			return err
		}
		tok, created, err := svc.Anonymous(r.Context(), httpapi.Workspace(r.Context()), req)
		if err != nil {
			return err
		}
		status := http.StatusOK
		if created {
			status = http.StatusCreated
		}
		return httpapi.WriteJSON(w, status, tok)
	})
}
