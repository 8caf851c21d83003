package jobs

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/recomm/catalog"
)

// ImportRequest is the stored request of an import job.
type ImportRequest struct {
	URL     string `json:"url"`
	Format  string `json:"format"`
	Update  bool   `json:"update"`
	Logging bool   `json:"loggingEnabled"`
}

// ImportResult is the stored result of an import job.
type ImportResult struct {
	Added         int                `json:"added"`
	NotAddedCount int                `json:"notAddedCount"`
	NotAdded      []catalog.NotAdded `json:"notAdded,omitempty"`
	Message       string             `json:"message,omitempty"`
}

// Check validates a request before it is accepted.
func (r ImportRequest) Check(src *Sources) error {
	if r.Format != catalog.FormatCSV && r.Format != catalog.FormatJSON {
		return apierr.InvalidArgumentf("format must be csv or json, not %q", r.Format)
	}
	return src.CheckURL(r.URL)
}

// ImportRunner runs the import jobs of the three kinds. An import is all
// or nothing: one that ends in error leaves its table as it was, and the
// job's final status is stored in the transaction that publishes or undoes
// the import.
func ImportRunner(cat *catalog.Catalog, src *Sources) Runner {
	return func(ctx context.Context, j Job) (string, any, error) {
		// The journal names the job, so that a process taking it over after
		// this one died undoes what it had written (Queue.Reclaimed).
		ctx = catalog.WithJob(ctx, j.ID)
		var req ImportRequest
		if err := json.Unmarshal(j.Request, &req); err != nil {
			return "", nil, fmt.Errorf("decode request: %w", err)
		}
		f, err := src.Open(ctx, j.WS, req.URL)
		if err != nil {
			return "", nil, err
		}
		defer f.Close()
		opts := catalog.ImportOptions{Format: req.Format, Update: req.Update, Logging: req.Logging, Label: j.ID,
			Settle: func(tx *sql.Tx, res catalog.ImportResult, err error) error {
				status, out := importOutcome(res, err)
				return finish(context.WithoutCancel(ctx), tx, j, status, out)
			}}
		var res catalog.ImportResult
		switch j.Kind {
		case ImportItems:
			res, err = cat.ImportEntities(ctx, j.WS, j.Scope, f, opts)
		case ImportUsers:
			res, err = cat.ImportEntities(ctx, j.WS, catalog.Users, f, opts)
		case ImportInteractions:
			res, err = cat.ImportInteractions(ctx, j.WS, j.Scope, f, opts)
		default:
			return "", nil, fmt.Errorf("not an import job: %s", j.Kind)
		}
		status, out := importOutcome(res, err)
		return status, out, nil
	}
}

// importOutcome is the final status and result of an import. NotAddedCount
// is the true count; the list may be capped (catalog.MaxNotAdded).
func importOutcome(res catalog.ImportResult, err error) (string, ImportResult) {
	out := ImportResult{Added: res.Added, NotAddedCount: res.NotAddedCount, NotAdded: res.NotAdded}
	if err != nil {
		out.Message = failure(err)
		return Error, out
	}
	if res.NotAddedCount > 0 {
		return CompletedWithErrors, out
	}
	return Completed, out
}

// failure describes why an import failed, for its status answer.
func failure(err error) string {
	if e := apierr.DiskFull(err); e != nil {
		return e.Description
	}
	if e, ok := apierr.As(err); ok {
		return e.Description
	}
	return err.Error()
}
