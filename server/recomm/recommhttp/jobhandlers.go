package recommhttp

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/httpapi"
	"github.com/harkhq/hark/server/recomm/catalog"
	"github.com/harkhq/hark/server/recomm/jobs"
	"github.com/harkhq/hark/server/recomm/recommend"
)

func writeJSON(w http.ResponseWriter, status int, v any) error {
	return httpapi.WriteJSON(w, status, v)
}

// ---- batch imports

func (s *Service) importBatch(kind string, update bool) handler {
	return func(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
		var b struct {
			URL           string `json:"url"`
			Format        string `json:"format"`
			Configuration struct {
				LoggingEnabled *httpapi.Bool `json:"loggingEnabled"`
			} `json:"configuration"`
		}
		if err := s.decode(r, &b); err != nil {
			return err
		}
		sc := scope(kind == jobs.ImportUsers, p)
		if sc != catalog.Users {
			if _, err := s.Catalog.Table(r.Context(), ws, sc); err != nil {
				return err
			}
		}
		req := jobs.ImportRequest{URL: b.URL, Format: b.Format, Update: update, Logging: true}
		if b.Configuration.LoggingEnabled != nil {
			req.Logging = bool(*b.Configuration.LoggingEnabled)
		}
		if err := req.Check(s.Sources); err != nil {
			return err
		}
		j, err := s.Queue.Submit(r.Context(), ws, sc, kind, req)
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusAccepted, jobStatus(j.ID, j.Status))
	}
}

func (s *Service) importStatus(kind, listName string) handler {
	return func(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
		j, err := s.Queue.Get(r.Context(), ws, scope(kind == jobs.ImportUsers, p), kind, p["r"])
		if err != nil {
			return err
		}
		out := jobStatus(j.ID, j.Status)
		res, err := decodeResult[jobs.ImportResult](j.Result)
		if err != nil {
			return err
		}
		if j.Status == jobs.Completed || j.Status == jobs.CompletedWithErrors {
			// harkd's addition: the true counts (the listed entries may be capped)
			out["added"], out["notAddedCount"] = res.Added, res.NotAddedCount
		}
		if j.Status == jobs.CompletedWithErrors {
			list := res.NotAdded
			if list == nil {
				list = []catalog.NotAdded{}
			}
			out[listName] = list
		}
		if res.Message != "" {
			out["message"] = res.Message
		}
		return writeJSON(w, http.StatusOK, out)
	}
}

// cancel cancels a queued job of this kind (an import or a training).
func (s *Service) cancel(kind string) handler {
	return func(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
		j, err := s.Queue.Cancel(r.Context(), ws, scope(kind == jobs.ImportUsers, p), kind, p["r"])
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, jobStatus(j.ID, j.Status))
	}
}

// listJobs answers GET /jobs (harkd's addition): the workspace's recent imports, trainings and
// batch recommendations, newest first, each with its kind, table, status and times.
func (s *Service) listJobs(w http.ResponseWriter, r *http.Request, ws int64, _ params) error {
	q, err := listQuery(r)
	if err != nil {
		return err
	}
	limit, err := catalog.CheckLimit(q.Limit)
	if err != nil {
		return err
	}
	list, err := s.Queue.List(r.Context(), ws, limit)
	if err != nil {
		return err
	}
	out := make([]map[string]any, len(list))
	for i, j := range list {
		e := jobStatus(j.ID, j.Status)
		e["kind"], e["tableId"], e["created"] = j.Kind, j.Scope, j.Created.UnixMilli()
		if !j.Finished.IsZero() {
			e["finished"] = j.Finished.UnixMilli()
		}
		out[i] = e
	}
	return writeJSON(w, http.StatusOK, out)
}

// ---- training and ensemble

func (s *Service) train(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
	var req jobs.TrainRequest
	if err := s.decode(r, &req); err != nil {
		return err
	}
	if err := s.Trainer.Check(r.Context(), ws, p["t"], req); err != nil {
		return err
	}
	j, err := s.Queue.Submit(r.Context(), ws, p["t"], jobs.Train, req)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, jobStatus(j.ID, j.Status))
}

func (s *Service) trainStatus(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
	j, err := s.Queue.Get(r.Context(), ws, p["t"], jobs.Train, p["r"])
	if err != nil {
		return err
	}
	out := jobStatus(j.ID, j.Status)
	res, err := decodeResult[jobs.TrainResult](j.Result)
	if err != nil {
		return err
	}
	if res.Message != "" {
		out["message"] = res.Message
	}
	if res.Tuning != nil {
		out["tuning"] = res.Tuning
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Service) ensemble(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
	var b struct {
		Data []struct {
			Engine string `json:"engine"`
			Value  number `json:"value"`
		} `json:"data"`
	}
	if err := s.decode(r, &b); err != nil {
		return err
	}
	weights := make([]catalog.EnsembleWeight, len(b.Data))
	for i, d := range b.Data {
		if !d.Value.set {
			return apierr.InvalidArgumentf("data: engine %q needs a value", d.Engine)
		}
		weights[i] = catalog.EnsembleWeight{Engine: d.Engine, Value: d.Value.v}
	}
	if _, err := s.Catalog.SetEnsemble(r.Context(), ws, p["t"], weights); err != nil {
		return err
	}
	return created(w)
}

// ---- recommendations

func (s *Service) recommend(slot string) handler {
	return func(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
		q := r.URL.Query()
		rq := recommend.Query{Slot: slot, SubjectID: p["id"], Engine: q.Get("engine"), Filter: q.Get("filter"),
			InteractionFilter: q.Get("interactionFilter"), PopularFilter: q.Get("popularFilter"),
			InteractionID: q.Get("interactionId"), AttributeID: q.Get("attributeId"), Sort: q.Get("sort"),
			AfterID: q.Get("afterId")}
		if l := q.Get("limit"); l != "" {
			n, err := strconv.Atoi(l)
			if err != nil || n < 1 {
				return apierr.InvalidArgumentf("limit must be a positive integer, not %q", l)
			}
			rq.Limit = n
		}
		if d := q.Get("diversity"); d != "" {
			f, err := strconv.ParseFloat(d, 64)
			if err != nil {
				return apierr.InvalidArgumentf("diversity must be a number between 0 and 1, not %q", d)
			}
			rq.Diversity = f
		}
		var err error
		if rq.Explain, err = boolParam(r, "explain"); err != nil {
			return err
		}
		recs, err := s.Recommender.Recommend(r.Context(), ws, p["t"], rq)
		if err != nil {
			return err
		}
		users := slot == catalog.SlotUsersToUser || slot == catalog.SlotUsersToItem
		key, sc := "itemId", p["t"]
		if users {
			key, sc = "userId", catalog.Users
		}
		attrs := attributesParam(r)
		var snap *catalog.Snapshot
		if len(attrs) > 0 {
			if snap, err = s.Catalog.Snapshot(r.Context(), ws, sc); err != nil {
				return err
			}
			if err := knownAttributes(attrs, snap); err != nil {
				return err
			}
		}
		out := make([]map[string]any, len(recs))
		for i, rec := range recs {
			e := map[string]any{key: rec.ID, "match": rec.Match}
			if snap != nil {
				v, _ := snap.Values(rec.ID)
				for _, a := range attrs {
					if x, ok := v[a]; ok {
						e[a] = jsonValue(snap.Schema[a], x)
					}
				}
			}
			if rq.Explain {
				because := make([]map[string]any, len(rec.Because))
				for k, b := range rec.Because {
					because[k] = map[string]any{"itemId": b.ID, "match": b.Match}
				}
				e["because"] = because
			}
			out[i] = e
		}
		return writeJSON(w, http.StatusOK, out)
	}
}

// knownAttributes checks an attributes parameter against a scope, naming what exists.
func knownAttributes(attrs []string, snap *catalog.Snapshot) error {
	for _, a := range attrs {
		if _, ok := snap.Schema[a]; !ok {
			return apierr.InvalidArgumentf("attributes: unknown attribute %q (there are %s)", a, catalog.AttributeNames(snap.Attributes))
		}
	}
	return nil
}

// ---- batch recommendations

func batchStatus(j jobs.Job) (map[string]any, error) {
	var req jobs.BatchRequest
	if err := json.Unmarshal(j.Request, &req); err != nil {
		return nil, err
	}
	out := jobStatus(j.ID, j.Status)
	out["recommendationsCount"] = req.Count
	res, err := decodeResult[jobs.BatchResult](j.Result)
	if err != nil {
		return nil, err
	}
	if res.Message != "" {
		out["message"] = res.Message
	}
	return out, nil
}

func (s *Service) schedule(slot string) handler {
	return func(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
		var b struct {
			Engine        string         `json:"engine"`
			Configuration map[string]any `json:"configuration"`
		}
		if err := s.decode(r, &b); err != nil {
			return err
		}
		j, _, err := s.Batcher.Schedule(r.Context(), s.Queue, ws, p["t"],
			jobs.BatchRequest{Slot: slot, Engine: b.Engine, Configuration: b.Configuration})
		if err != nil {
			return err
		}
		out, err := batchStatus(j)
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusAccepted, out)
	}
}

func (s *Service) batchStatus(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
	j, err := s.Queue.Get(r.Context(), ws, p["t"], jobs.Recommend, p["r"])
	if err != nil {
		return err
	}
	out, err := batchStatus(j)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Service) batchCancel(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
	j, err := s.Batcher.Cancel(r.Context(), s.Queue, ws, p["t"], p["r"])
	if err != nil {
		return err
	}
	out, err := batchStatus(j)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}
