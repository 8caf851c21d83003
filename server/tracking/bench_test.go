package tracking

import (
	"encoding/json"
	"testing"
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
	for b.Loop() {
		if err := s.save(1, fixes, places); err != nil {
			b.Fatal(err)
		}
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
