package endpoints

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/httpapi"
	"github.com/harkhq/hark/server/onboarding"
)

// Onboarding registers /onboarding/*.
func Onboarding(api *httpapi.API, svc *onboarding.Service) {
	api.Handle("GET /v2/onboarding/start", httpapi.Token, func(w http.ResponseWriter, r *http.Request) error {
		steps, err := svc.Start(withBaseURL(r), httpapi.User(r.Context()))
		if err != nil {
			return err
		}
		return httpapi.WriteJSON(w, http.StatusOK, steps)
	})
	api.Handle("POST /v2/onboarding/{step}/response", httpapi.Token, func(w http.ResponseWriter, r *http.Request) error {
		data, err := answerData(w, r, api.MaxJSONBody())
		if err != nil {
			return err
		}
		steps, err := svc.Answer(withBaseURL(r), httpapi.User(r.Context()), r.PathValue("step"), data)
		if err != nil {
			return err
		}
		return httpapi.WriteJSON(w, http.StatusOK, steps)
	})
}

// answerData takes the answer from the form field data (the sample's
// form-encoded body) or from a JSON body {"data": "<JSON text>"} or
// {"data": {...}} (DECISIONS §7). An empty body is an empty answer.
func answerData(w http.ResponseWriter, r *http.Request, limit int64) (json.RawMessage, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		return nil, apierr.TooLargef("the body is larger than %d bytes", limit)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, nil
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "application/x-www-form-urlencoded" {
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, apierr.BadRequestf("malformed form: %v", err)
		}
		if !form.Has("data") {
			return nil, apierr.BadRequestf("the form has no field data")
		}
		return json.RawMessage(form.Get("data")), nil
	}
	var v struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, apierr.BadRequestf("the body must be JSON {\"data\": ...} or a form with the field data: %v", err)
	}
	return v.Data, nil
}
