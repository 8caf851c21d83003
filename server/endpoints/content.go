package endpoints

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/httpapi"
	"github.com/harkhq/hark/server/items"
	"github.com/harkhq/hark/server/surveys"
	"github.com/harkhq/hark/server/tracking"
)

// Surveys registers /surveys/*.
func Surveys(api *httpapi.API, svc *surveys.Service) {
	list := func(w http.ResponseWriter, r *http.Request) error {
		entries, err := svc.List(r.Context(), httpapi.User(r.Context()))
		if err != nil {
			return err
		}
		return httpapi.WriteJSON(w, http.StatusOK, entries)
	}
	api.Handle("GET /v2/surveys/{$}", httpapi.Token, list)
	api.Handle("GET /v2/surveys", httpapi.Token, list)
	api.Handle("GET /v2/surveys/{id}", httpapi.Token, func(w http.ResponseWriter, r *http.Request) error {
		id, err := surveyID(r)
		if err != nil {
			return err
		}
		d, err := svc.Get(r.Context(), httpapi.User(r.Context()), id, baseURL(r))
		if err != nil {
			return err
		}
		return httpapi.WriteJSON(w, http.StatusOK, d)
	})
	api.Handle("POST /v2/surveys/{id}", httpapi.Token, func(w http.ResponseWriter, r *http.Request) error {
		id, err := surveyID(r)
		if err != nil {
			return err
		}
		var body struct {
			Selected *[]json.Number `json:"selected_items"`
		}
		if err := httpapi.DecodeJSON(r, api.MaxJSONBody(), &body); err != nil {
			return err
		}
		if body.Selected == nil {
			return apierr.BadRequestf("the body needs selected_items, a list of item ids")
		}
		ids, err := intList(*body.Selected)
		if err != nil {
			return err
		}
		d, err := svc.Select(r.Context(), httpapi.User(r.Context()), id, ids, baseURL(r))
		if err != nil {
			return err
		}
		return httpapi.WriteJSON(w, http.StatusOK, d)
	})
}

func surveyID(r *http.Request) (int, error) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		return 0, apierr.NotFoundf("no survey %q", r.PathValue("id"))
	}
	return id, nil
}

// intList accepts numbers and numeric strings (["1", 2]).
func intList(in []json.Number) ([]int, error) {
	out := make([]int, 0, len(in))
	for _, n := range in {
		v, err := strconv.Atoi(strings.TrimSpace(n.String()))
		if err != nil {
			return nil, apierr.BadRequestf("item id %q is not an integer", n.String())
		}
		out = append(out, v)
	}
	return out, nil
}

// Preferences tells what the items need of a user beyond the request.
type Preferences interface {
	Profile(ctx context.Context, userID int64) (map[string]float64, error)
	Metric(ctx context.Context, userID int64) bool
}

// Items registers /items/... for every path of the items service.
func Items(api *httpapi.API, svc *items.Service, prefs Preferences) {
	api.Handle("GET /v2/items/{path...}", httpapi.Token, func(w http.ResponseWriter, r *http.Request) error {
		ri, err := readRequestInfo(r)
		if err != nil {
			return err
		}
		q := items.Query{Path: r.PathValue("path"), Lat: ri.Lat, Lon: ri.Lon, UserID: httpapi.User(r.Context()),
			BaseURL: baseURL(r)}
		if q.Page, q.RowsPerPage, err = items.PagingFromValues(r.URL.Query()); err != nil {
			return err
		}
		if q.Profile, err = prefs.Profile(r.Context(), q.UserID); err != nil {
			return err
		}
		q.Metric = prefs.Metric(r.Context(), q.UserID)
		env, err := svc.List(r.Context(), q)
		if err != nil {
			return err
		}
		return httpapi.WriteJSON(w, http.StatusOK, env)
	})
}

// Icons serves the PNG icons of surveys and items.
func Icons(api *httpapi.API) {
	api.Handle("GET /v2/media/icons/{file}", httpapi.Public, func(w http.ResponseWriter, r *http.Request) error {
		name, ok := strings.CutSuffix(r.PathValue("file"), ".png")
		if !ok {
			return apierr.NotFoundf("no icon %q", r.PathValue("file"))
		}
		png, found := surveys.Icon(name)
		if !found {
			png, found = items.Icon(name)
		}
		if !found {
			return apierr.NotFoundf("no icon %q", name)
		}
		w.Header().Set("Content-Type", "image/png")
		w.Header().Set("Cache-Control", "public, max-age=86400")
		w.Header().Set("Content-Length", strconv.Itoa(len(png)))
		_, err := w.Write(png)
		return err
	})
}

// Tracking registers /tracking/* and the published datasets.
func Tracking(api *httpapi.API, svc *tracking.Service) {
	api.Handle("GET /v2/datasets/{file}", httpapi.Public, func(w http.ResponseWriter, r *http.Request) error {
		city, ok := strings.CutSuffix(r.PathValue("file"), ".json")
		if !ok {
			return apierr.NotFoundf("no dataset %q", r.PathValue("file"))
		}
		data, err := tracking.Dataset(city)
		if err != nil {
			return err
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		_, err = w.Write(data)
		return err
	})
	api.Handle("POST /v2/tracking/uploadDataset", httpapi.Token, func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			URL string `json:"url"`
		}
		if err := httpapi.DecodeJSON(r, api.MaxJSONBody(), &body); err != nil {
			return err
		}
		job, err := svc.Upload(r.Context(), httpapi.User(r.Context()), body.URL)
		if err != nil {
			return err
		}
		return httpapi.WriteJSON(w, http.StatusAccepted, job)
	})
	api.Handle("GET /v2/tracking/uploadDataset/{id}", httpapi.Token, func(w http.ResponseWriter, r *http.Request) error {
		job, err := svc.Job(r.Context(), httpapi.User(r.Context()), r.PathValue("id"))
		if err != nil {
			return err
		}
		return httpapi.WriteJSON(w, http.StatusOK, job)
	})
	api.Handle("GET /v2/tracking/pois", httpapi.Token, func(w http.ResponseWriter, r *http.Request) error {
		places, err := svc.POIs(r.Context(), httpapi.User(r.Context()))
		if err != nil {
			return err
		}
		return httpapi.WriteJSON(w, http.StatusOK, places)
	})
}
