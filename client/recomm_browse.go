package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// Browsing helpers: harkd's additions to the recommendation service, documented in the README
// ("Recommendations: browsing").

// SetDisplayAttribute chooses the attribute that names a table's items; "" returns to the automatic
// choice (title, name, then the first string attribute).
func (s *RecommService) SetDisplayAttribute(ctx context.Context, tableID, attributeID string) error {
	return s.call(ctx, http.MethodPatch, pathOf("tables", tableID), nil, map[string]string{"displayAttribute": attributeID}, nil)
}

// HistoryEntry is one past interaction of a user (ItemID set) or with an item (UserID set).
type HistoryEntry struct {
	UserID        string  `json:"userId,omitempty"`
	ItemID        string  `json:"itemId,omitempty"`
	InteractionID string  `json:"interactionId"`
	Timestamp     int64   `json:"timestamp"`
	Value         float64 `json:"value"`
}

func (s *RecommService) history(ctx context.Context, tableID, kind, id string, limit int) ([]HistoryEntry, error) {
	var q url.Values
	if limit > 0 {
		q = url.Values{"limit": {strconv.Itoa(limit)}}
	}
	var out []HistoryEntry
	err := s.call(ctx, http.MethodGet, pathOf(tableID, "history", kind, id), q, nil, &out)
	return out, err
}

// UserHistory lists every interaction of a user in a table, of every type, newest first.
func (s *RecommService) UserHistory(ctx context.Context, tableID, userID string, limit int) ([]HistoryEntry, error) {
	return s.history(ctx, tableID, "users", userID, limit)
}

// ItemHistory lists every interaction with an item, newest first.
func (s *RecommService) ItemHistory(ctx context.Context, tableID, itemID string, limit int) ([]HistoryEntry, error) {
	return s.history(ctx, tableID, "items", itemID, limit)
}

// SampleTable is the load summary of one table of the sample catalog.
type SampleTable struct {
	TableID          string `json:"tableId"`
	Items            int    `json:"items"`
	Interactions     int    `json:"interactions"`
	TrainRequestID   string `json:"trainRequestId"`
	InteractionID    string `json:"interactionId"`
	DisplayAttribute string `json:"displayAttribute"`
}

// SampleSummary is the answer of LoadSample.
type SampleSummary struct {
	Users  int           `json:"users"`
	Tables []SampleTable `json:"tables"`
}

// LoadSample loads the sample catalog harkd generates (sandbox films, restaurants and news with a
// synthetic history) and queues a hybrid training of each of its tables; a conflict when it is loaded
// already.
func (s *RecommService) LoadSample(ctx context.Context) (SampleSummary, error) {
	var out SampleSummary
	err := s.call(ctx, http.MethodPost, "/samples", nil, struct{}{}, &out)
	return out, err
}

// Job is one entry of Jobs: an import (kind import-items, import-users, import-interactions), a
// training (train) or a batch recommendation (recommend). Times are epoch milliseconds.
type Job struct {
	RequestID string `json:"requestId"`
	Status    string `json:"status"`
	Kind      string `json:"kind"`
	TableID   string `json:"tableId"`
	Created   int64  `json:"created"`
	Finished  int64  `json:"finished,omitempty"`
}

// Jobs lists the workspace's most recent jobs, newest first (limit 0: the server's 500).
func (s *RecommService) Jobs(ctx context.Context, limit int) ([]Job, error) {
	var q url.Values
	if limit > 0 {
		q = url.Values{"limit": {strconv.Itoa(limit)}}
	}
	var out []Job
	err := s.call(ctx, http.MethodGet, "/jobs", q, nil, &out)
	return out, err
}
