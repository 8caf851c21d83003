package speechworker

import (
	"context"
	"testing"
	"time"

	"github.com/harkhq/hark/server/speech"
	"github.com/harkhq/hark/server/speech/mp3enc"
	"github.com/harkhq/hark/server/speech/tts"
)

const benchText = "The weather in Madrid is sunny, with a high of twenty four degrees. Tomorrow will be cloudy in the afternoon. ¿Algo más?"

// BenchmarkSynthesisWorkerVsInProcess speaks the same answer (synthesis
// and MP3 encoding) in this process and through a worker, alternately in
// one run, and reports both per second of speech produced and their ratio
// (the isolation's cost; target at most 1.10).
func BenchmarkSynthesisWorkerVsInProcess(b *testing.B) {
	inProcess, err := tts.New()
	if err != nil {
		b.Skip(err)
	}
	pool := NewSynthesis(Options{Size: 1})
	defer pool.Close()
	if err := pool.Ready(context.Background()); err != nil {
		b.Skip(err)
	}
	worker := tts.NewWith(pool)
	ctx := context.Background()
	data, err := worker.Synthesize(ctx, "en", benchText)
	if err != nil {
		b.Fatal(err)
	}
	frames, _ := mp3enc.Frames(data)
	speechSecs := float64(len(frames)*576) / tts.SampleRate
	var local, remote time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, s := range []*tts.Synthesizer{inProcess, worker} {
			start := time.Now()
			if _, err := s.Synthesize(ctx, "en", benchText); err != nil {
				b.Fatal(err)
			}
			if j == 0 {
				local += time.Since(start)
			} else {
				remote += time.Since(start)
			}
		}
	}
	perSpeech := func(d time.Duration) float64 { return d.Seconds() * 1000 / float64(b.N) / speechSecs }
	b.ReportMetric(perSpeech(local), "inproc-ms/s-speech")
	b.ReportMetric(perSpeech(remote), "worker-ms/s-speech")
	b.ReportMetric(remote.Seconds()/local.Seconds(), "worker/inproc")
}

// BenchmarkRecognitionLatencyWorkerVsInProcess streams spoken commands at
// real-time pace (20 ms chunks every 20 ms) to a recogniser in this
// process and to a worker, alternately, and reports the mean latency from
// the last byte to the result of each and their ratio (target at most
// 1.10).
func BenchmarkRecognitionLatencyWorkerVsInProcess(b *testing.B) {
	cfg := speech.Config{Grammar: dialogueGrammar(), Slots: 1}
	inProcess, err := speech.New(cfg)
	if err != nil {
		b.Skip(err)
	}
	defer inProcess.Close()
	pool := NewRecognition(cfg, Options{Size: 1})
	defer pool.Close()
	if err := pool.Ready(context.Background()); err != nil {
		b.Skip(err)
	}
	var fixtures [][]byte
	for _, text := range []string{"what time is it", "set an alarm for seven thirty am", "turn on the kitchen lights"} {
		fixtures = append(fixtures, pcmOf(b, flite(b, text)))
	}
	var local, remote time.Duration
	var n int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, pcm := range fixtures {
			for j, e := range []speech.Engine{inProcess, pool} {
				u, err := e.Open(context.Background(), "en", 16000)
				if err != nil {
					b.Fatal(err)
				}
				for k := 0; k < len(pcm); k += 640 {
					if _, err := u.Write(pcm[k:min(k+640, len(pcm))]); err != nil {
						b.Fatal(err)
					}
					time.Sleep(20 * time.Millisecond)
				}
				last := time.Now()
				if _, err := u.Finish(); err != nil {
					b.Fatal(err)
				}
				if j == 0 {
					local += time.Since(last)
				} else {
					remote += time.Since(last)
				}
			}
			n++
		}
	}
	b.ReportMetric(float64(local.Milliseconds())/float64(n), "inproc-ms")
	b.ReportMetric(float64(remote.Milliseconds())/float64(n), "worker-ms")
	b.ReportMetric(remote.Seconds()/local.Seconds(), "worker/inproc")
}
