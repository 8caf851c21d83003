package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Statuses of imports, trainings and batch recommendations.
const (
	StatusQueued              = "queued"
	StatusProcessing          = "processing"
	StatusCompleted           = "completed"
	StatusCompletedWithErrors = "completed_with_errors"
	StatusError               = "error"
	StatusCanceled            = "canceled"
	StatusTrainingTimeOut     = "training_time_out"
)

// StatusEnded tells whether a request in this status has ended.
func StatusEnded(status string) bool {
	switch status {
	case StatusCompleted, StatusCompletedWithErrors, StatusError, StatusCanceled, StatusTrainingTimeOut:
		return true
	}
	return false
}

// ---- batch imports

// Import file formats.
const (
	FormatCSV  = "csv"
	FormatJSON = "json"
)

// ImportRequest is the body of a batch import. URL is an allowlisted
// http(s) address or storage://<folder>/<file> (storage:///<file> for the
// root) in the workspace's own storage.
type ImportRequest struct {
	URL           string        `json:"url"`
	Format        string        `json:"format"`
	Configuration ImportOptions `json:"configuration"`
}

// ImportOptions: a nil LoggingEnabled keeps the default (true), which lists
// the skipped elements in the status.
type ImportOptions struct {
	LoggingEnabled *bool `json:"loggingEnabled,omitempty"`
}

// NotAddedEntry is an element an import skipped: its id, a code such as
// EntityAlreadyExistsException or InvalidArgumentException, and why.
type NotAddedEntry struct {
	ErrorID string `json:"errorId"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ImportJob is the status of a batch import. The list of skipped elements
// named for its kind is set when the import ended completed_with_errors.
type ImportJob struct {
	RequestID            string          `json:"requestId"`
	Status               string          `json:"status"`
	ItemsNotAdded        []NotAddedEntry `json:"itemsNotAdded,omitempty"`
	UsersNotAdded        []NotAddedEntry `json:"usersNotAdded,omitempty"`
	InteractionsNotAdded []NotAddedEntry `json:"interactionsNotAdded,omitempty"`
	Message              string          `json:"message,omitempty"` // why an import failed as a whole
	// Added and NotAddedCount are the true counts of an ended import (harkd's addition); the
	// not-added list may be capped.
	Added         int `json:"added,omitempty"`
	NotAddedCount int `json:"notAddedCount,omitempty"`
}

// Done tells whether the import has ended.
func (j ImportJob) Done() bool { return StatusEnded(j.Status) }

// NotAdded is the skipped-elements list, whichever kind of import it is.
func (j ImportJob) NotAdded() []NotAddedEntry {
	switch {
	case j.ItemsNotAdded != nil:
		return j.ItemsNotAdded
	case j.UsersNotAdded != nil:
		return j.UsersNotAdded
	}
	return j.InteractionsNotAdded
}

// ImportKind says what a batch import loads; status, cancel and wait need it
// because each kind has its own path.
type ImportKind int

const (
	ImportItems ImportKind = iota
	ImportUsers
	ImportInteractions
)

func (k ImportKind) String() string {
	switch k {
	case ImportItems:
		return "items"
	case ImportUsers:
		return "users"
	case ImportInteractions:
		return "interactions"
	}
	return fmt.Sprintf("ImportKind(%d)", int(k))
}

// batchPath is the import path of a kind; tableID is not used for users.
func (k ImportKind) batchPath(tableID string, requestID ...string) (string, error) {
	var segs []string
	switch k {
	case ImportItems:
		segs = []string{tableID, "items", "batch"}
	case ImportUsers:
		segs = []string{"users", "batch"}
	case ImportInteractions:
		segs = []string{tableID, "interactions", "batch"}
	default:
		return "", fmt.Errorf("client: unknown import kind %d", int(k))
	}
	return pathOf(append(segs, requestID...)...), nil
}

func (s *RecommService) importCall(ctx context.Context, method string, kind ImportKind, tableID string, body any, requestID ...string) (ImportJob, error) {
	var out ImportJob
	path, err := kind.batchPath(tableID, requestID...)
	if err != nil {
		return out, err
	}
	err = s.call(ctx, method, path, nil, body, &out)
	return out, err
}

// ImportItems adds the items of a file to a table; the answer is queued.
func (s *RecommService) ImportItems(ctx context.Context, tableID string, req ImportRequest) (ImportJob, error) {
	return s.importCall(ctx, http.MethodPost, ImportItems, tableID, req)
}

// UpdateItems changes items of a table from a file (the id column plus the
// attributes to change).
func (s *RecommService) UpdateItems(ctx context.Context, tableID string, req ImportRequest) (ImportJob, error) {
	return s.importCall(ctx, http.MethodPatch, ImportItems, tableID, req)
}

// ImportUsers adds the users of a file.
func (s *RecommService) ImportUsers(ctx context.Context, req ImportRequest) (ImportJob, error) {
	return s.importCall(ctx, http.MethodPost, ImportUsers, "", req)
}

// UpdateUsers changes users from a file.
func (s *RecommService) UpdateUsers(ctx context.Context, req ImportRequest) (ImportJob, error) {
	return s.importCall(ctx, http.MethodPatch, ImportUsers, "", req)
}

// ImportInteractions adds the interaction records of a file (columns
// userId, itemId, timestamp, interactionName, value).
func (s *RecommService) ImportInteractions(ctx context.Context, tableID string, req ImportRequest) (ImportJob, error) {
	return s.importCall(ctx, http.MethodPost, ImportInteractions, tableID, req)
}

// ImportStatus reads an import's status; tableID is ignored for ImportUsers.
func (s *RecommService) ImportStatus(ctx context.Context, kind ImportKind, tableID, requestID string) (ImportJob, error) {
	return s.importCall(ctx, http.MethodGet, kind, tableID, nil, requestID)
}

// CancelImport cancels an import that is still queued.
func (s *RecommService) CancelImport(ctx context.Context, kind ImportKind, tableID, requestID string) (ImportJob, error) {
	return s.importCall(ctx, http.MethodDelete, kind, tableID, nil, requestID)
}

// WaitImport polls an import every interval until it ends or ctx is done,
// telling progress (when not nil) each status read; it returns the last.
func (s *RecommService) WaitImport(ctx context.Context, kind ImportKind, tableID, requestID string, interval time.Duration, progress func(ImportJob)) (ImportJob, error) {
	return wait(ctx, interval, progress, func() (ImportJob, error) { return s.ImportStatus(ctx, kind, tableID, requestID) })
}

// ---- training

// TrainRequest is the body of a training. A nil Configuration trains on
// everything; InteractionsFilter names the interactions to train on (all
// when empty).
type TrainRequest struct {
	Engine             string        `json:"engine"`
	InteractionsFilter []string      `json:"interactionsFilter,omitempty"`
	Configuration      *TrainOptions `json:"configuration,omitempty"`
}

// TrainOptions are the optional keys of a training configuration.
// Before and After are epoch milliseconds bounding the interactions taken
// (the document's names: Before is where they start, After where they
// end). A nil attribute list means all attributes, an empty one none.
// PopularFilter is N or N% of the most interacted entities left out.
type TrainOptions struct {
	Before         *int64   `json:"before,omitempty"`
	After          *int64   `json:"after,omitempty"`
	ItemFilter     string   `json:"itemFilter,omitempty"`
	UserFilter     string   `json:"userFilter,omitempty"`
	ItemAttributes []string `json:"itemAttributes"`
	UserAttributes []string `json:"userAttributes"`
	PopularFilter  string   `json:"popularFilter,omitempty"`
}

// TrainJob is the status of a training; Message says why one failed.
type TrainJob struct {
	RequestID string `json:"requestId"`
	Status    string `json:"status"`
	Message   string `json:"message,omitempty"`
	// Tuning is the hyperparameter search's report as the server gives it (README "Self-tuning
	// training"), kept whole for --json; Summary reads the parts a person looks at first.
	Tuning json.RawMessage `json:"tuning,omitempty"`
}

// TuningSummary is what a training's search did: the settings it chose and their validation
// NDCG@10 against the engine's defaults, or why it did not search.
type TuningSummary struct {
	Skipped    string         `json:"skipped"`
	Seconds    float64        `json:"seconds"`
	Trials     int            `json:"trials"`
	Chosen     map[string]any `json:"chosen"`
	Validation *struct {
		Chosen struct {
			NDCG float64 `json:"ndcg@10"`
		} `json:"chosen"`
		Defaults struct {
			NDCG float64 `json:"ndcg@10"`
		} `json:"defaults"`
	} `json:"validation"`
}

// Summary reads the training's tuning report; ok is false when the server sent none (an older
// server, or a training still queued).
func (j TrainJob) Summary() (s TuningSummary, ok bool) {
	if len(j.Tuning) == 0 || json.Unmarshal(j.Tuning, &s) != nil {
		return TuningSummary{}, false
	}
	return s, true
}

// Done tells whether the training has ended.
func (j TrainJob) Done() bool { return StatusEnded(j.Status) }

// Train starts a training of a table; the answer is queued. A spent
// training budget answers 403 TrainingTimeOut.
func (s *RecommService) Train(ctx context.Context, tableID string, req TrainRequest) (TrainJob, error) {
	var out TrainJob
	err := s.call(ctx, http.MethodPost, pathOf(tableID, "train"), nil, req, &out)
	return out, err
}

// TrainStatus reads a training's status.
func (s *RecommService) TrainStatus(ctx context.Context, tableID, requestID string) (TrainJob, error) {
	var out TrainJob
	err := s.call(ctx, http.MethodGet, pathOf(tableID, "train", requestID), nil, nil, &out)
	return out, err
}

// CancelTrain cancels a training that is still queued.
func (s *RecommService) CancelTrain(ctx context.Context, tableID, requestID string) (TrainJob, error) {
	var out TrainJob
	err := s.call(ctx, http.MethodDelete, pathOf(tableID, "train", requestID), nil, nil, &out)
	return out, err
}

// WaitTraining polls a training every interval until it ends or ctx is
// done, telling progress (when not nil) each status read.
func (s *RecommService) WaitTraining(ctx context.Context, tableID, requestID string, interval time.Duration, progress func(TrainJob)) (TrainJob, error) {
	return wait(ctx, interval, progress, func() (TrainJob, error) { return s.TrainStatus(ctx, tableID, requestID) })
}

// SetEnsemble creates or replaces the ensemble of a table: weights >= 0
// with a positive sum, every engine trained. A table then uses it through
// Engines{...: EngineEnsemble} or RecommendOptions.Engine.
func (s *RecommService) SetEnsemble(ctx context.Context, tableID string, weights ...EnsembleWeight) error {
	if weights == nil {
		weights = []EnsembleWeight{}
	}
	return s.call(ctx, http.MethodPost, pathOf(tableID, "ensemble"), nil, map[string][]EnsembleWeight{"data": weights}, nil)
}

// ---- batch recommendations

// BatchRequest is the body of a batch recommendation; an empty Engine
// takes the table's engine for that path.
type BatchRequest struct {
	Engine        string       `json:"engine,omitempty"`
	Configuration BatchOptions `json:"configuration"`
}

// BatchOptions are the optional keys of a batch recommendation; zero
// values are not sent (Limit defaults to 500 per recipient).
type BatchOptions struct {
	RecipientsFilter      string  `json:"recipientsFilter,omitempty"`
	RecommendationsFilter string  `json:"recommendationsFilter,omitempty"`
	InteractionFilter     string  `json:"interactionFilter,omitempty"`
	PopularFilter         string  `json:"popularFilter,omitempty"`
	AttributeID           string  `json:"attributeId,omitempty"`
	InteractionID         string  `json:"interactionId,omitempty"`
	Limit                 int     `json:"limit,omitempty"`
	Sort                  string  `json:"sort,omitempty"`
	Diversity             float64 `json:"diversity,omitempty"`
}

// BatchJob is the status of a batch recommendation. RecommendationsCount
// is what the job writes and what it is charged against the quota.
type BatchJob struct {
	RequestID            string `json:"requestId"`
	Status               string `json:"status"`
	RecommendationsCount int64  `json:"recommendationsCount"`
	Message              string `json:"message,omitempty"`
}

// Done tells whether the batch recommendation has ended.
func (j BatchJob) Done() bool { return StatusEnded(j.Status) }

func (s *RecommService) schedule(ctx context.Context, tableID, from, to string, req BatchRequest) (BatchJob, error) {
	var out BatchJob
	err := s.call(ctx, http.MethodPost, pathOf(tableID, from, to, "recommend"), nil, req, &out)
	return out, err
}

// BatchItemsForUsers schedules items for each user. The results are written
// to the workspace storage, folder <requestId>, one <userId>.json per
// recipient. A count over the remaining quota answers 403 QuotaExceeded.
func (s *RecommService) BatchItemsForUsers(ctx context.Context, tableID string, req BatchRequest) (BatchJob, error) {
	return s.schedule(ctx, tableID, "users", "items", req)
}

// BatchUsersForItems schedules users for each item.
func (s *RecommService) BatchUsersForItems(ctx context.Context, tableID string, req BatchRequest) (BatchJob, error) {
	return s.schedule(ctx, tableID, "items", "users", req)
}

// BatchItemsForItems schedules similar items for each item.
func (s *RecommService) BatchItemsForItems(ctx context.Context, tableID string, req BatchRequest) (BatchJob, error) {
	return s.schedule(ctx, tableID, "items", "items", req)
}

// BatchUsersForUsers schedules similar users for each user.
func (s *RecommService) BatchUsersForUsers(ctx context.Context, tableID string, req BatchRequest) (BatchJob, error) {
	return s.schedule(ctx, tableID, "users", "users", req)
}

// BatchStatus reads a batch recommendation's status.
func (s *RecommService) BatchStatus(ctx context.Context, tableID, requestID string) (BatchJob, error) {
	var out BatchJob
	err := s.call(ctx, http.MethodGet, pathOf(tableID, "recommend", requestID), nil, nil, &out)
	return out, err
}

// CancelBatch cancels a batch recommendation that is still queued.
func (s *RecommService) CancelBatch(ctx context.Context, tableID, requestID string) (BatchJob, error) {
	var out BatchJob
	err := s.call(ctx, http.MethodDelete, pathOf(tableID, "recommend", requestID), nil, nil, &out)
	return out, err
}

// WaitBatch polls a batch recommendation every interval until it ends or
// ctx is done, telling progress (when not nil) each status read.
func (s *RecommService) WaitBatch(ctx context.Context, tableID, requestID string, interval time.Duration, progress func(BatchJob)) (BatchJob, error) {
	return wait(ctx, interval, progress, func() (BatchJob, error) { return s.BatchStatus(ctx, tableID, requestID) })
}

// minPollInterval keeps a zero or tiny interval from hammering the server.
const minPollInterval = 10 * time.Millisecond

// wait polls until the status is terminal, an error, or ctx is done; on
// ctx's end it returns the last status read with ctx's error.
func wait[T interface{ Done() bool }](ctx context.Context, interval time.Duration, progress func(T), poll func() (T, error)) (T, error) {
	interval = max(interval, minPollInterval)
	t := time.NewTimer(interval)
	defer t.Stop()
	var last T
	for {
		j, err := poll()
		if err != nil {
			if ctx.Err() != nil { // the end came during a poll
				return last, ctx.Err()
			}
			return j, err
		}
		last = j
		if progress != nil {
			progress(j)
		}
		if j.Done() {
			return j, nil
		}
		t.Reset(interval)
		select {
		case <-ctx.Done():
			return j, ctx.Err()
		case <-t.C:
		}
	}
}
