package recommhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/recomm/catalog"
	"github.com/harkhq/hark/server/recomm/engines"
	"github.com/harkhq/hark/server/recomm/jobs"
	"github.com/harkhq/hark/server/recomm/rsql"
	"github.com/harkhq/hark/server/recomm/sample"
)

// sampleCatalog is generated once per process: it is deterministic.
// sampleTuningBudget is the search time of each sample table's training (the server's own budget
// when that is lower). The tables are small: searching them for the default 40 s ends at the
// search's trial cap after 10-22 planned seconds per table, so a person who loaded the sample waited
// about a minute for the three, for a validation NDCG@10 at most 0.009 higher than after 3 s
// (sandbox-movies .6522 → .6608, food .2353 → .2390, news .2536 → .2546; defaults .4613, .1515, .0293).
const sampleTuningBudget = 3 * time.Second

var sampleCatalog = sync.OnceValues(func() (*sample.Catalog, error) { return sample.Generate(context.Background()) })

// SampleTable is the load summary of one sample table.
type SampleTable struct {
	TableID          string `json:"tableId"`
	Items            int    `json:"items"`
	Interactions     int    `json:"interactions"`
	TrainRequestID   string `json:"trainRequestId"`
	InteractionID    string `json:"interactionId"`
	DisplayAttribute string `json:"displayAttribute"`
}

// SampleSummary answers POST /samples.
type SampleSummary struct {
	Users  int           `json:"users"` // the sample's users, whether this load added them or an earlier one
	Tables []SampleTable `json:"tables"`
}

// loadSample answers POST /samples (harkd's addition): it creates the sample tables, loads their
// items, the sample users and their interactions, and queues a hybrid training of each table. 409
// when a sample table exists already (delete the sample tables to load it again).
func (s *Service) loadSample(w http.ResponseWriter, r *http.Request, ws int64, _ params) error {
	sum, err := s.LoadSample(r.Context(), ws)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, sum)
}

// LoadSample loads the sample catalog into a workspace (see loadSample).
func (s *Service) LoadSample(ctx context.Context, ws int64) (SampleSummary, error) {
	cat, err := sampleCatalog()
	if err != nil {
		return SampleSummary{}, err
	}
	existing, err := s.Catalog.Tables(ctx, ws)
	if err != nil {
		return SampleSummary{}, err
	}
	for _, t := range cat.Tables {
		for _, id := range existing {
			if id == t.ID {
				return SampleSummary{}, apierr.Conflictf("table %q already exists: the sample is loaded (delete its tables to load it again)", t.ID)
			}
		}
	}
	sum := SampleSummary{}
	users := make([]map[string]string, len(cat.Users))
	for i, u := range cat.Users {
		users[i] = map[string]string{"userId": u}
	}
	// users left from an earlier load (its tables deleted) are kept: users are not tied to a table
	if _, err := s.Catalog.ImportEntities(ctx, ws, catalog.Users, jsonReader(users), catalog.ImportOptions{Format: catalog.FormatJSON}); err != nil {
		return sum, fmt.Errorf("sample users: %w", err)
	}
	sum.Users = len(cat.Users)
	for _, t := range cat.Tables {
		attrs := make([]catalog.Attribute, len(t.Attributes))
		for i, a := range t.Attributes {
			typ, ok := rsql.ParseType(a.Type)
			if !ok {
				return sum, fmt.Errorf("sample table %s: attribute type %q", t.ID, a.Type)
			}
			attrs[i] = catalog.Attribute{ID: a.ID, Type: typ}
		}
		if err := s.Catalog.CreateTable(ctx, ws, t.ID, catalog.Engines{catalog.SlotDefault: engines.Hybrid}, attrs); err != nil {
			return sum, err
		}
		lo, hi := t.Interaction.Min, t.Interaction.Max
		if err := s.Catalog.CreateInteraction(ctx, ws, t.ID, catalog.InteractionDef{ID: t.Interaction.ID, Weight: 1,
			Type: t.Interaction.Type, Min: &lo, Max: &hi}); err != nil {
			return sum, err
		}
		if _, err := s.Catalog.ImportEntities(ctx, ws, t.ID, jsonReader(t.Items), catalog.ImportOptions{Format: catalog.FormatJSON}); err != nil {
			return sum, fmt.Errorf("sample items of %s: %w", t.ID, err)
		}
		recs := make([]map[string]any, len(t.Records))
		for i, rec := range t.Records {
			recs[i] = map[string]any{"userId": rec.UserID, "itemId": rec.ItemID, "timestamp": rec.Timestamp,
				"interactionName": t.Interaction.ID, "value": rec.Value}
		}
		added, err := s.Catalog.ImportInteractions(ctx, ws, t.ID, jsonReader(recs), catalog.ImportOptions{Format: catalog.FormatJSON})
		if err != nil {
			return sum, fmt.Errorf("sample interactions of %s: %w", t.ID, err)
		}
		display, err := s.Catalog.DisplayAttribute(ctx, ws, t.ID)
		if err != nil {
			return sum, err
		}
		sum.Tables = append(sum.Tables, SampleTable{TableID: t.ID, Items: len(t.Items), Interactions: added.Added,
			InteractionID: t.Interaction.ID, DisplayAttribute: display})
	}
	// The trainings are queued once every table is written: a training started beside the next
	// table's import holds the store's readers while the import waits to write, which made loading
	// take seconds instead of a fraction of one.
	tuning := map[string]any{"tuningBudget": min(s.Trainer.TuningBudget, sampleTuningBudget).Seconds()}
	for i := range sum.Tables {
		j, err := s.Queue.Submit(ctx, ws, sum.Tables[i].TableID, jobs.Train,
			jobs.TrainRequest{Engine: engines.Hybrid, Configuration: tuning})
		if err != nil {
			return sum, err
		}
		sum.Tables[i].TrainRequestID = j.ID
	}
	return sum, nil
}

func jsonReader(v any) *bytes.Reader {
	b, _ := json.Marshal(v)
	return bytes.NewReader(b)
}
