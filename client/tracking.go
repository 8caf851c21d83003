package client

import (
	"context"
	"net/http"
	"time"
)

// TrackingService covers /tracking/* and the published datasets.
type TrackingService struct{ c *Client }

// TrackingJob is the state of a dataset upload.
type TrackingJob struct {
	RequestID   string `json:"requestId"`
	Status      string `json:"status"` // queued, processing, completed, error
	Description string `json:"description,omitempty"`
	Points      int    `json:"points"`
	Places      int    `json:"places"`
}

// Done tells whether the job has ended.
func (j TrackingJob) Done() bool { return j.Status == "completed" || j.Status == "error" }

// Place is a detected place of the user.
type Place struct {
	ID           int     `json:"id"`
	Label        string  `json:"label"` // Home, Work, Other
	Lat          float64 `json:"lat"`
	Lon          float64 `json:"lon"`
	Visits       int     `json:"visits"`
	DwellMinutes int     `json:"dwellMinutes"`
	Radius       float64 `json:"radius"`
}

// DatasetCities are the cities whose simulated datasets the platform publishes.
var DatasetCities = []string{"san-francisco", "new-york", "madrid", "london", "singapore"}

// DatasetURL is the address of a city's published dataset.
func (s *TrackingService) DatasetURL(city string) string {
	return s.c.base.String() + "/datasets/" + city + ".json"
}

// Upload asks the platform to load the dataset at url; the job runs in the
// background.
func (s *TrackingService) Upload(ctx context.Context, url string) (TrackingJob, error) {
	body, n, err := jsonBody(map[string]string{"url": url})
	if err != nil {
		return TrackingJob{}, err
	}
	var out TrackingJob
	err = s.c.doJSON(ctx, &request{method: http.MethodPost, path: "/tracking/uploadDataset", auth: authToken,
		body: body, length: n, contentType: "application/json"}, &out)
	return out, err
}

// Job reports an upload's state.
func (s *TrackingService) Job(ctx context.Context, requestID string) (TrackingJob, error) {
	var out TrackingJob
	err := s.c.doJSON(ctx, &request{method: http.MethodGet, path: pathOf("tracking", "uploadDataset", requestID),
		auth: authToken}, &out)
	return out, err
}

// Wait polls a job every interval until it ends or ctx is done, telling
// progress (when not nil) each state seen.
func (s *TrackingService) Wait(ctx context.Context, requestID string, interval time.Duration, progress func(TrackingJob)) (TrackingJob, error) {
	return wait(ctx, interval, progress, func() (TrackingJob, error) { return s.Job(ctx, requestID) })
}

// POIs lists the places detected for the user.
func (s *TrackingService) POIs(ctx context.Context) ([]Place, error) {
	var out []Place
	err := s.c.doJSON(ctx, &request{method: http.MethodGet, path: "/tracking/pois", auth: authToken}, &out)
	return out, err
}
