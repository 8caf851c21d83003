package tracking

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/harkhq/hark/server/lease"
)

func BenchmarkGenerate(b *testing.B) {
	c, _ := cityBySlug("new-york")
	for b.Loop() {
		if _, err := generate(c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseDataset(b *testing.B) {
	data, err := Dataset("new-york")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := parseDataset(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDetectPlaces(b *testing.B) {
	data, err := Dataset("new-york")
	if err != nil {
		b.Fatal(err)
	}
	fixes, err := parseDataset(data)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		detectPlaces(fixes)
	}
}

func BenchmarkSave(b *testing.B) {
	data, err := Dataset("new-york")
	if err != nil {
		b.Fatal(err)
	}
	fixes, err := parseDataset(data)
	if err != nil {
		b.Fatal(err)
	}
	places := detectPlaces(fixes)
	db := openDB(b)
	s := newService(b, db, Config{})
	// save completes the upload it belongs to, fenced by its claim: the
	// row is put back to processing between rounds, off the clock.
	c := lease.Claim{ID: "bench", Group: 1, Owner: "bench-owner"}
	if _, err := db.Exec(`INSERT INTO tracking_jobs(id, user_id, url, status, owner, created_ms, updated_ms)
		VALUES('bench', 1, 'http://x', 'processing', 'bench-owner', 0, 0)`); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := s.save(context.Background(), c, 1, fixes, places); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if _, err := db.Exec(`UPDATE tracking_jobs SET status = 'processing' WHERE id = 'bench'`); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// Baseline for BenchmarkParseDataset: decoding alone, without validation,
// zone resolution and sorting.
func BenchmarkUnmarshalBaseline(b *testing.B) {
	data, err := Dataset("new-york")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var f File
		if err := json.Unmarshal(data, &f); err != nil {
			b.Fatal(err)
		}
	}
}
