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
	benchAnswers(b, func(i int) []string { k := i % len(benchQueries); return benchQueries[k : k+1] })
}

// benchAnswers asks, as one operation, the queries round gives for it.
func benchAnswers(b *testing.B, round func(i int) []string) {
	e, req := benchEngine()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, ok := processCPU()
	for i := 0; i < b.N; i++ {
		for _, q := range round(i) {
			req.Query = q
			if _, err := e.Answer(ctx, req); err != nil {
				b.Fatal(err)
			}
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

// severalQueries are requests said in one go, each followed by its parts.
var severalQueries = [][]string{
	{"turn off the lights and set an alarm for 6", "turn off the lights", "set an alarm for 6"},
	{"set an alarm for 7 and call mom", "set an alarm for 7", "call mom"},
	{"turn off the lights and tv", "turn off the lights", "turn off the tv"},
	{"what's the weather and what time is it", "what's the weather", "what time is it"},
	{"set a timer for 10 minutes and set another for 20 minutes", "set a timer for 10 minutes", "set a timer for 20 minutes"},
}

// BenchmarkAnswerSeveral measures an answer to several requests said in
// one go (together) against asking its parts one by one (apart), the
// baseline of the same run: what finding the parts costs.
func BenchmarkAnswerSeveral(b *testing.B) {
	b.Run("apart", func(b *testing.B) {
		benchAnswers(b, func(i int) []string { return severalQueries[i%len(severalQueries)][1:] })
	})
	b.Run("together", func(b *testing.B) {
		benchAnswers(b, func(i int) []string { return severalQueries[i%len(severalQueries)][:1] })
	})
}
