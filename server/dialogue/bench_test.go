package dialogue

import (
	"context"
	"strings"
	"testing"
	"time"
)

var benchQueries = []string{
	"set an alarm for seven thirty tomorrow morning",
	"what's the weather like in Madrid on friday",
	"text mom I'm running a bit late, start dinner without me",
	"turn the volume down by twenty",
	"play some jazz",
	"find an italian restaurant open now near me",
}

func benchEngine() (*Engine, Request) {
	lat, lon := 40.71, -74.0
	e := New(Config{Knowledge: newFakeKnowledge(), Music: testTracks, MusicURL: testMusicURL})
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		loc = time.UTC
	}
	return e, Request{Lang: "en", TimeZone: loc, Lat: &lat, Lon: &lon, UserID: 1,
		Now: time.Date(2026, 3, 4, 10, 15, 0, 0, loc)}
}

// BenchmarkAnswer measures one answer, cycling through typical queries.
func BenchmarkAnswer(b *testing.B) {
	e, req := benchEngine()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, ok := processCPU()
	for i := 0; i < b.N; i++ {
		req.Query = benchQueries[i%len(benchQueries)]
		if _, err := e.Answer(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu0, ok)
}

// reportCPU adds the CPU time per answer (garbage collection included).
func reportCPU(b *testing.B, cpu0 time.Duration, ok bool) {
	if cpu1, ok1 := processCPU(); ok && ok1 {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkTokenize is the baseline of the same run: only splitting and
// folding the words, the least any reading of a query costs.
func BenchmarkTokenize(b *testing.B) {
	b.ReportAllocs()
	cpu0, ok := processCPU()
	for i := 0; i < b.N; i++ {
		if len(tokenize(benchQueries[i%len(benchQueries)])) == 0 {
			b.Fatal("no tokens")
		}
	}
	reportCPU(b, cpu0, ok)
}

// BenchmarkAnswerParallel measures answers from many goroutines at once,
// as 64 concurrent clients would drive the server.
func BenchmarkAnswerParallel(b *testing.B) {
	e, base := benchEngine()
	ctx := context.Background()
	b.ReportAllocs()
	b.SetParallelism(32)
	b.ResetTimer()
	cpu0, ok := processCPU()
	defer func() { reportCPU(b, cpu0, ok) }()
	b.RunParallel(func(pb *testing.PB) {
		req := base
		i := 0
		for pb.Next() {
			req.Query = benchQueries[i%len(benchQueries)]
			i++
			if _, err := e.Answer(ctx, req); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// longestQuery is the costliest input the engine reads: MaxQueryBytes of
// words, many of them misspelt (each is looked up for a correction) and
// many matching some pattern.
func longestQuery() string {
	var b strings.Builder
	words := strings.Fields("remnd me to txt anna abuot the wheather tomorow and set an alarm for seven thirty " +
		"play some jaz turn the volumne down send an emial to bob saying qwzx vbnm")
	for i := 0; ; i++ {
		w := words[i%len(words)]
		if b.Len()+len(w)+1 > MaxQueryBytes {
			return b.String()
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
}

// BenchmarkAnswerLongest is the bound of one answer's work: the longest
// query the engine reads (the budget is 5 ms of CPU, cpu-ns/op).
func BenchmarkAnswerLongest(b *testing.B) {
	e, req := benchEngine()
	req.Query = longestQuery()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, ok := processCPU()
	for i := 0; i < b.N; i++ {
		if _, err := e.Answer(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu0, ok)
}
