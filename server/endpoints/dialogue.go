package endpoints

import (
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/dialogue"
	"github.com/harkhq/hark/server/httpapi"
)

// Dialogue registers POST /query/text; audio gives each answer its audio URL.
func Dialogue(api *httpapi.API, engine *dialogue.Engine, audio *Audio) {
	api.Handle("POST /v2/query/text", httpapi.Token, func(w http.ResponseWriter, r *http.Request) error {
		q, err := queryText(w, r, api.MaxJSONBody())
		if err != nil {
			return err
		}
		req, err := dialogueRequest(r, q)
		if err != nil {
			return err
		}
		// Without Accept-Language the engine tells the language from the
		// query; the answer's language comes back in Content-Language.
		if strings.TrimSpace(r.Header.Get("Accept-Language")) == "" {
			req.Lang = ""
		}
		// Service-Explain: 1 adds "explain" (how the query was read) to
		// the answer, for developers.
		req.Explain = explainRequested(r)
		resp, err := engine.Answer(r.Context(), req)
		if err != nil {
			return err
		}
		absoluteURLs(r, &resp)
		if err := audio.Speak(r, resp.Lang, &resp); err != nil {
			return err
		}
		w.Header().Set("Content-Language", resp.Lang)
		return httpapi.WriteJSON(w, http.StatusOK, resp)
	})
}

func explainRequested(r *http.Request) bool {
	switch strings.ToLower(strings.TrimSpace(r.Header.Get("Service-Explain"))) {
	case "1", "true", "yes":
		return true
	}
	return false
}

// dialogueRequest gathers what the engine needs from the headers.
func dialogueRequest(r *http.Request, q string) (dialogue.Request, error) {
	ri, err := readRequestInfo(r)
	if err != nil {
		return dialogue.Request{}, err
	}
	tz, err := timeZone(r)
	if err != nil {
		return dialogue.Request{}, err
	}
	return dialogue.Request{Query: q, Lang: language(r), TimeZone: tz, Lat: ri.Lat, Lon: ri.Lon, Ref: ri.Ref,
		UserID: httpapi.User(r.Context()), Workspace: httpapi.Workspace(r.Context())}, nil
}

// queryText reads q from a JSON body {"q": "..."}, a form body, or the
// query string.
func queryText(w http.ResponseWriter, r *http.Request, limit int64) (string, error) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/x-www-form-urlencoded":
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
		if err != nil {
			return "", apierr.TooLargef("the body is larger than %d bytes", limit)
		}
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return "", apierr.BadRequestf("malformed form: %v", err)
		}
		return form.Get("q"), nil
	case "", "application/json":
		if r.ContentLength == 0 && r.URL.Query().Has("q") {
			return r.URL.Query().Get("q"), nil
		}
		var body struct {
			Q *string `json:"q"`
		}
		if err := httpapi.DecodeJSON(r, limit, &body); err != nil {
			return "", err
		}
		if body.Q == nil {
			return "", apierr.BadRequestf("the body needs q, the query text")
		}
		return *body.Q, nil
	default:
		return "", apierr.BadRequestf("Content-Type %q is not accepted; send application/json", ct)
	}
}
