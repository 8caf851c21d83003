package recommhttp

import (
	"cmp"
	"net/http"
	"slices"
	"strconv"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/recomm/catalog"
	"github.com/harkhq/hark/server/recomm/jobs"
)

type params = map[string]string

func (s *Service) routes() *router {
	rt := &router{}
	// tables
	rt.add("POST", "tables", s.createTable)
	rt.add("GET", "tables", s.listTables)
	rt.add("GET", "tables/{t}", s.getTable)
	rt.add("PATCH", "tables/{t}", s.patchTable)
	rt.add("DELETE", "tables/{t}", s.deleteTable)
	rt.add("POST", "samples", s.loadSample)
	rt.add("GET", "jobs", s.listJobs)
	// users and user attributes (literal "users" first)
	rt.add("POST", "users/attributes", s.addAttributes(true))
	rt.add("GET", "users/attributes", s.listAttributes(true))
	rt.add("GET", "users/attributes/{a}", s.getAttribute(true))
	rt.add("PATCH", "users/attributes/{a}", s.patchAttribute(true))
	rt.add("DELETE", "users/attributes/{a}", s.deleteAttribute(true))
	rt.add("POST", "users/batch", s.importBatch(jobs.ImportUsers, false))
	rt.add("PATCH", "users/batch", s.importBatch(jobs.ImportUsers, true))
	rt.add("GET", "users/batch/{r}", s.importStatus(jobs.ImportUsers, "usersNotAdded"))
	rt.add("DELETE", "users/batch/{r}", s.cancel(jobs.ImportUsers))
	rt.add("POST", "users/{u}/warmup", s.addKeywords)
	rt.add("DELETE", "users/{u}/warmup", s.deleteSomeKeywords)
	rt.add("GET", "users/{u}/warmup/keywords", s.getKeywords)
	rt.add("DELETE", "users/{u}/warmup/keywords", s.deleteAllKeywords)
	rt.add("POST", "users", s.addEntity(true))
	rt.add("GET", "users", s.listEntities(true))
	rt.add("DELETE", "users", s.deleteAllUsers)
	rt.add("GET", "users/{id}", s.getEntity(true))
	rt.add("PATCH", "users/{id}", s.patchEntity(true))
	rt.add("DELETE", "users/{id}", s.deleteEntity(true))
	// item attributes
	rt.add("POST", "{t}/attributes", s.addAttributes(false))
	rt.add("GET", "{t}/attributes", s.listAttributes(false))
	rt.add("GET", "{t}/attributes/{a}", s.getAttribute(false))
	rt.add("PATCH", "{t}/attributes/{a}", s.patchAttribute(false))
	rt.add("DELETE", "{t}/attributes/{a}", s.deleteAttribute(false))
	// imports
	rt.add("POST", "{t}/items/batch", s.importBatch(jobs.ImportItems, false))
	rt.add("PATCH", "{t}/items/batch", s.importBatch(jobs.ImportItems, true))
	rt.add("GET", "{t}/items/batch/{r}", s.importStatus(jobs.ImportItems, "itemsNotAdded"))
	rt.add("DELETE", "{t}/items/batch/{r}", s.cancel(jobs.ImportItems))
	rt.add("POST", "{t}/interactions/batch", s.importBatch(jobs.ImportInteractions, false))
	rt.add("GET", "{t}/interactions/batch/{r}", s.importStatus(jobs.ImportInteractions, "interactionsNotAdded"))
	rt.add("DELETE", "{t}/interactions/batch/{r}", s.cancel(jobs.ImportInteractions))
	// interaction definitions and records
	rt.add("POST", "{t}/interactions", s.createInteraction)
	rt.add("GET", "{t}/interactions", s.listInteractions)
	rt.add("GET", "{t}/interactions/{i}", s.getInteraction)
	rt.add("PATCH", "{t}/interactions/{i}", s.patchInteraction)
	rt.add("DELETE", "{t}/interactions/{i}", s.deleteInteraction)
	rt.add("POST", "{t}/interactions/{i}/{u}/{item}", s.addRecord)
	rt.add("DELETE", "{t}/interactions/{i}/{u}/{item}", s.deleteRecord)
	// training, ensemble
	rt.add("POST", "{t}/train", s.train)
	rt.add("GET", "{t}/train/{r}", s.trainStatus)
	rt.add("DELETE", "{t}/train/{r}", s.cancel(jobs.Train))
	rt.add("POST", "{t}/ensemble", s.ensemble)
	// batch recommendations (before the wildcard paths they overlap)
	rt.add("POST", "{t}/users/items/recommend", s.schedule(catalog.SlotItemsToUser))
	rt.add("POST", "{t}/items/users/recommend", s.schedule(catalog.SlotUsersToItem))
	rt.add("POST", "{t}/items/items/recommend", s.schedule(catalog.SlotItemsToItem))
	rt.add("POST", "{t}/users/users/recommend", s.schedule(catalog.SlotUsersToUser))
	rt.add("GET", "{t}/recommend/{r}", s.batchStatus)
	rt.add("DELETE", "{t}/recommend/{r}", s.batchCancel)
	// recommendations, then interaction listings of the same shape
	rt.add("GET", "{t}/users/{id}/items", s.recommend(catalog.SlotItemsToUser))
	rt.add("GET", "{t}/users/{id}/users", s.recommend(catalog.SlotUsersToUser))
	rt.add("GET", "{t}/items/{id}/items", s.recommend(catalog.SlotItemsToItem))
	rt.add("GET", "{t}/items/{id}/users", s.recommend(catalog.SlotUsersToItem))
	rt.add("GET", "{t}/history/users/{u}", s.history(true))
	rt.add("GET", "{t}/history/items/{item}", s.history(false))
	rt.add("GET", "{t}/users/{u}/{i}", s.userRecords)
	rt.add("GET", "{t}/items/{item}/{i}", s.itemRecords)
	// single items
	rt.add("POST", "{t}/items", s.addEntity(false))
	rt.add("GET", "{t}/items", s.listEntities(false))
	rt.add("GET", "{t}/items/{id}", s.getEntity(false))
	rt.add("PATCH", "{t}/items/{id}", s.patchEntity(false))
	rt.add("DELETE", "{t}/items/{id}", s.deleteEntity(false))
	return rt
}

// scope is Users for user routes and the table otherwise.
func scope(users bool, p params) string {
	if users {
		return catalog.Users
	}
	return p["t"]
}

// ---- tables

type tableBody struct {
	TableID string          `json:"tableId"`
	Engines catalog.Engines `json:"engines"`
	// DisplayAttribute names the table's items in lists (harkd's addition; "" = automatic).
	DisplayAttribute *string         `json:"displayAttribute"`
	Engine           string          `json:"engine"` // deprecated: the default engine
	Attributes       []attributeJSON `json:"attributes"`
}

func (b tableBody) engines() catalog.Engines {
	if b.Engines == nil && b.Engine != "" {
		return catalog.Engines{catalog.SlotDefault: b.Engine}
	}
	if b.Engines != nil && b.Engine != "" {
		if _, ok := b.Engines[catalog.SlotDefault]; !ok {
			b.Engines[catalog.SlotDefault] = b.Engine
		}
	}
	return b.Engines
}

func (s *Service) createTable(w http.ResponseWriter, r *http.Request, ws int64, _ params) error {
	var b tableBody
	if err := s.decode(r, &b); err != nil {
		return err
	}
	attrs, err := attributesFrom(b.Attributes)
	if err != nil {
		return err
	}
	if err := s.Catalog.CreateTable(r.Context(), ws, b.TableID, b.engines(), attrs); err != nil {
		return err
	}
	if b.DisplayAttribute != nil && *b.DisplayAttribute != "" {
		if err := s.Catalog.SetDisplay(r.Context(), ws, b.TableID, *b.DisplayAttribute); err != nil {
			s.Catalog.DeleteTable(r.Context(), ws, b.TableID)
			return err
		}
	}
	return created(w)
}

func (s *Service) patchTable(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
	var b tableBody
	if err := s.decode(r, &b); err != nil {
		return err
	}
	e := b.engines()
	if e == nil && b.DisplayAttribute == nil {
		return apierr.InvalidArgumentf("engines is required")
	}
	if e != nil {
		if err := s.Catalog.SetEngines(r.Context(), ws, p["t"], e); err != nil {
			return err
		}
	}
	if b.DisplayAttribute != nil {
		if err := s.Catalog.SetDisplay(r.Context(), ws, p["t"], *b.DisplayAttribute); err != nil {
			return err
		}
	}
	return noContent(w)
}

func (s *Service) getTable(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
	withTrain, err := boolParam(r, "trainConfig")
	if err != nil {
		return err
	}
	t, err := s.Catalog.Table(r.Context(), ws, p["t"])
	if err != nil {
		return err
	}
	display, err := s.Catalog.DisplayAttribute(r.Context(), ws, t.ID)
	if err != nil {
		return err
	}
	out := map[string]any{"tableId": t.ID, "engines": t.Engines, "engine": t.Engines[catalog.SlotDefault], "displayAttribute": display}
	if len(t.Ensemble) > 0 {
		out["ensemble"] = t.Ensemble
	}
	if withTrain {
		type engineConfig struct {
			Engine        string         `json:"engine"`
			Timestamp     string         `json:"timestamp"`
			Configuration map[string]any `json:"configuration"`
		}
		type trainConfig struct {
			InteractionID string         `json:"interactionId"`
			EngineConfig  []engineConfig `json:"engineConfig"`
		}
		list := []trainConfig{}
		for _, tc := range t.TrainConfig {
			ec := engineConfig{Engine: tc.Engine, Timestamp: tc.Finished.UTC().Format(timestampLayout), Configuration: tc.Configuration}
			if n := len(list); n > 0 && list[n-1].InteractionID == tc.InteractionID {
				list[n-1].EngineConfig = append(list[n-1].EngineConfig, ec)
			} else {
				list = append(list, trainConfig{InteractionID: tc.InteractionID, EngineConfig: []engineConfig{ec}})
			}
		}
		out["trainConfig"] = list
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Service) listTables(w http.ResponseWriter, r *http.Request, ws int64, _ params) error {
	ids, err := s.Catalog.Tables(r.Context(), ws)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, ids)
}

func (s *Service) deleteTable(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
	ctx := r.Context()
	if err := s.Catalog.DeleteTable(ctx, ws, p["t"]); err != nil {
		return err
	}
	if err := s.Queue.DeleteScope(ctx, ws, p["t"]); err != nil {
		return err
	}
	if err := s.Models.DeleteTable(ws, p["t"]); err != nil {
		return err
	}
	return noContent(w)
}

// ---- attributes

func (s *Service) addAttributes(users bool) handler {
	return func(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
		var b struct {
			Attributes []attributeJSON `json:"attributes"`
		}
		if err := s.decode(r, &b); err != nil {
			return err
		}
		attrs, err := attributesFrom(b.Attributes)
		if err != nil {
			return err
		}
		if err := s.Catalog.AddAttributes(r.Context(), ws, scope(users, p), attrs); err != nil {
			return err
		}
		return created(w)
	}
}

func (s *Service) patchAttribute(users bool) handler {
	return func(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
		var b struct {
			Values []string `json:"values"`
		}
		if err := s.decode(r, &b); err != nil {
			return err
		}
		if err := s.Catalog.AddAttributeValues(r.Context(), ws, scope(users, p), p["a"], b.Values); err != nil {
			return err
		}
		return noContent(w)
	}
}

func (s *Service) getAttribute(users bool) handler {
	return func(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
		a, err := s.Catalog.Attribute(r.Context(), ws, scope(users, p), p["a"])
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, attributeInfo(a))
	}
}

func (s *Service) listAttributes(users bool) handler {
	return func(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
		list, err := s.Catalog.Attributes(r.Context(), ws, scope(users, p))
		if err != nil {
			return err
		}
		out := make([]attributeJSON, len(list))
		for i, a := range list {
			out[i] = attributeInfo(a)
		}
		return writeJSON(w, http.StatusOK, out)
	}
}

func (s *Service) deleteAttribute(users bool) handler {
	return func(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
		if err := s.Catalog.DeleteAttribute(r.Context(), ws, scope(users, p), p["a"]); err != nil {
			return err
		}
		return noContent(w)
	}
}

// ---- items and users

func idKey(users bool) string {
	if users {
		return "userId"
	}
	return "itemId"
}

func (s *Service) addEntity(users bool) handler {
	return func(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
		var body map[string]any
		if err := s.decode(r, &body); err != nil {
			return err
		}
		id, _ := body[idKey(users)].(string)
		delete(body, idKey(users))
		if err := s.Catalog.AddEntity(r.Context(), ws, scope(users, p), id, body); err != nil {
			return err
		}
		return created(w)
	}
}

func (s *Service) patchEntity(users bool) handler {
	return func(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
		var body map[string]any
		if err := s.decode(r, &body); err != nil {
			return err
		}
		delete(body, idKey(users))
		if err := s.Catalog.UpdateEntity(r.Context(), ws, scope(users, p), p["id"], body); err != nil {
			return err
		}
		return noContent(w)
	}
}

func (s *Service) getEntity(users bool) handler {
	return func(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
		sc := scope(users, p)
		e, err := s.Catalog.Entity(r.Context(), ws, sc, p["id"])
		if err != nil {
			return err
		}
		snap, err := s.Catalog.Snapshot(r.Context(), ws, sc)
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, entityJSON(idKey(users), e, snap.Schema, nil))
	}
}

func (s *Service) deleteEntity(users bool) handler {
	return func(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
		if err := s.Catalog.DeleteEntity(r.Context(), ws, scope(users, p), p["id"]); err != nil {
			return err
		}
		if users { // the document answers 200 for a user, with no body shown
			w.WriteHeader(http.StatusOK)
			return nil
		}
		return noContent(w)
	}
}

func (s *Service) deleteAllUsers(w http.ResponseWriter, r *http.Request, ws int64, _ params) error {
	if err := s.Catalog.DeleteAllUsers(r.Context(), ws); err != nil {
		return err
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

func (s *Service) listEntities(users bool) handler {
	return func(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
		q, err := listQuery(r)
		if err != nil {
			return err
		}
		sc := scope(users, p)
		list, err := s.Catalog.List(r.Context(), ws, sc, q)
		if err != nil {
			return err
		}
		attrs := attributesParam(r)
		if attrs == nil {
			ids := make([]string, len(list))
			for i, e := range list {
				ids[i] = e.ID
			}
			return writeJSON(w, http.StatusOK, ids)
		}
		snap, err := s.Catalog.Snapshot(r.Context(), ws, sc)
		if err != nil {
			return err
		}
		if err := knownAttributes(attrs, snap); err != nil {
			return err
		}
		out := make([]map[string]any, len(list))
		for i, e := range list {
			out[i] = entityJSON(idKey(users), e, snap.Schema, attrs)
		}
		return writeJSON(w, http.StatusOK, out)
	}
}

// ---- keywords

type keywordsBody struct {
	Keywords []string `json:"keywords"`
}

func (s *Service) addKeywords(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
	var b keywordsBody
	if err := s.decode(r, &b); err != nil {
		return err
	}
	if err := s.Catalog.AddKeywords(r.Context(), ws, p["u"], b.Keywords); err != nil {
		return err
	}
	return noContent(w)
}

func (s *Service) getKeywords(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
	kw, err := s.Catalog.Keywords(r.Context(), ws, p["u"])
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, kw)
}

func (s *Service) deleteAllKeywords(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
	if err := s.Catalog.DeleteKeywords(r.Context(), ws, p["u"], nil); err != nil {
		return err
	}
	return noContent(w)
}

// deleteSomeKeywords takes the keywords from repeated `keyword` query
// parameters or from a JSON body (DECISIONS §12).
func (s *Service) deleteSomeKeywords(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
	kw := r.URL.Query()["keyword"]
	if r.ContentLength != 0 {
		var b keywordsBody
		if err := s.decode(r, &b); err != nil {
			return err
		}
		kw = append(kw, b.Keywords...)
	}
	if len(kw) == 0 {
		return apierr.InvalidArgumentf("keywords: give them in the body or as keyword query parameters")
	}
	if err := s.Catalog.DeleteKeywords(r.Context(), ws, p["u"], kw); err != nil {
		return err
	}
	return noContent(w)
}

// ---- interaction definitions and records

func (s *Service) createInteraction(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
	var b interactionJSON
	if err := s.decode(r, &b); err != nil {
		return err
	}
	if b.Weight == nil || !b.Weight.set {
		return apierr.InvalidArgumentf("weight is required")
	}
	if b.Cumulative == nil {
		return apierr.InvalidArgumentf("cumulative is required")
	}
	d := catalog.InteractionDef{ID: b.InteractionID, Weight: b.Weight.v, Cumulative: bool(*b.Cumulative),
		Type: b.Type, Polarity: b.Polarity}
	if b.MinValue != nil {
		d.Min = b.MinValue.ptr()
	}
	if b.MaxValue != nil {
		d.Max = b.MaxValue.ptr()
	}
	if err := s.Catalog.CreateInteraction(r.Context(), ws, p["t"], d); err != nil {
		return err
	}
	return created(w)
}

func (s *Service) patchInteraction(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
	var b interactionJSON
	if err := s.decode(r, &b); err != nil {
		return err
	}
	var weight *float64
	if b.Weight != nil {
		weight = b.Weight.ptr()
	}
	if err := s.Catalog.UpdateInteraction(r.Context(), ws, p["t"], p["i"], weight, b.InteractionID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

func (s *Service) getInteraction(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
	d, err := s.Catalog.Interaction(r.Context(), ws, p["t"], p["i"])
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, infoOf(d))
}

func (s *Service) listInteractions(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
	list, err := s.Catalog.Interactions(r.Context(), ws, p["t"])
	if err != nil {
		return err
	}
	out := make([]interactionInfo, len(list))
	for i, d := range list {
		out[i] = infoOf(d)
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Service) deleteInteraction(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
	if err := s.Catalog.DeleteInteraction(r.Context(), ws, p["t"], p["i"]); err != nil {
		return err
	}
	return noContent(w)
}

type recordBody struct {
	Timestamp *number `json:"timestamp"`
	Value     *number `json:"value"`
}

func (b recordBody) timestamp() *int64 {
	if b.Timestamp == nil || !b.Timestamp.set {
		return nil
	}
	ts := int64(b.Timestamp.v)
	return &ts
}

func (s *Service) addRecord(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
	var b recordBody
	if r.ContentLength != 0 {
		if err := s.decode(r, &b); err != nil {
			return err
		}
	}
	var value *float64
	if b.Value != nil {
		value = b.Value.ptr()
	}
	if err := s.Catalog.AddRecord(r.Context(), ws, p["t"], p["i"], p["u"], p["item"], b.timestamp(), value); err != nil {
		return err
	}
	return created(w)
}

func (s *Service) deleteRecord(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
	var b recordBody
	if r.ContentLength != 0 {
		if err := s.decode(r, &b); err != nil {
			return err
		}
	}
	ts := b.timestamp()
	if ts == nil {
		if q := r.URL.Query().Get("timestamp"); q != "" {
			n, err := strconv.ParseInt(q, 10, 64)
			if err != nil {
				return apierr.InvalidArgumentf("timestamp must be epoch milliseconds")
			}
			ts = &n
		}
	}
	if ts == nil {
		return apierr.InvalidArgumentf("timestamp is required: a record is identified by user, item and timestamp")
	}
	if err := s.Catalog.DeleteRecord(r.Context(), ws, p["t"], p["i"], p["u"], p["item"], *ts); err != nil {
		return err
	}
	return noContent(w)
}

func recordsJSON(list []catalog.Record, users bool) []map[string]any {
	out := make([]map[string]any, len(list))
	for i, rec := range list {
		m := map[string]any{"timestamp": rec.Timestamp, "value": rec.Value}
		if users {
			m["userId"] = rec.UserID
		} else {
			m["itemId"] = rec.ItemID
		}
		out[i] = m
	}
	return out
}

// history answers every interaction of one user (or with one item) in a table, of every type, newest
// first: harkd's addition for browsing a user's past beside their recommendations.
func (s *Service) history(users bool) handler {
	return func(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
		q, err := listQuery(r)
		if err != nil {
			return err
		}
		limit, err := catalog.CheckLimit(q.Limit)
		if err != nil {
			return err
		}
		sc, id, other := p["t"], p["item"], "userId"
		if users {
			sc, id, other = catalog.Users, p["u"], "itemId"
		}
		if _, err := s.Catalog.Entity(r.Context(), ws, sc, id); err != nil {
			return err
		}
		events, err := s.Catalog.History(r.Context(), ws, p["t"], sc, id)
		if err != nil {
			return err
		}
		slices.SortStableFunc(events, func(a, b catalog.Event) int { return cmp.Compare(b.Timestamp, a.Timestamp) })
		out := make([]map[string]any, 0, min(limit, len(events)))
		for _, e := range events[:min(limit, len(events))] {
			m := map[string]any{"interactionId": e.Def.ID, "timestamp": e.Timestamp, "value": e.Value}
			if users {
				m[other] = e.ItemID
			} else {
				m[other] = e.UserID
			}
			out = append(out, m)
		}
		return writeJSON(w, http.StatusOK, out)
	}
}

func (s *Service) userRecords(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
	q, err := listQuery(r)
	if err != nil {
		return err
	}
	list, err := s.Catalog.UserRecords(r.Context(), ws, p["t"], p["u"], p["i"], q)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, recordsJSON(list, false))
}

func (s *Service) itemRecords(w http.ResponseWriter, r *http.Request, ws int64, p params) error {
	q, err := listQuery(r)
	if err != nil {
		return err
	}
	list, err := s.Catalog.ItemRecords(r.Context(), ws, p["t"], p["item"], p["i"], q)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, recordsJSON(list, true))
}
