package client_test

import (
	"bytes"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/harkhq/hark/server"
)

// benchCommands are 2-3 s in-domain commands (flite kal16).
var benchCommands = []string{
	"what's the weather like in london tomorrow",
	"set a timer for twenty minutes",
	"set an alarm for seven thirty am",
	"play some classical music",
}

// BenchmarkStreamLatency streams each command at real-time pace, as a
// microphone would, and measures from the last request byte to the
// response headers (the dialogue answer) and to the first MP3 byte of the
// spoken answer. It reports the medians over all runs.
func BenchmarkStreamLatency(b *testing.B) {
	c, _ := voiceClient(b, server.Config{})
	var wavs [][]byte
	for _, text := range benchCommands {
		wavs = append(wavs, flite(b, text))
	}
	var headers, firstAudio []time.Duration
	for b.Loop() {
		for _, wav := range wavs {
			body := &pacedWAV{data: wav}
			ans, err := c.Dialogue.Stream(ctxT(b), body, 16000, 0)
			if err != nil {
				b.Fatal(err)
			}
			gotHeaders := time.Now()
			first := make([]byte, 1)
			if _, err := io.ReadFull(ans.Audio, first); err != nil {
				b.Fatal(err)
			}
			gotAudio := time.Now()
			io.Copy(io.Discard, ans.Audio)
			ans.Audio.Close()
			headers = append(headers, gotHeaders.Sub(body.lastSent))
			firstAudio = append(firstAudio, gotAudio.Sub(body.lastSent))
		}
	}
	b.ReportMetric(median(headers).Seconds()*1000, "ms-to-headers-p50")
	b.ReportMetric(median(firstAudio).Seconds()*1000, "ms-to-audio-p50")
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkStreamThroughput sends the commands over 4 concurrent streams,
// as fast as the server takes them, and reads each spoken answer to its
// end. It reports seconds of speech recognised and answered per second of
// wall time, against one stream at a time in the same run.
func BenchmarkStreamThroughput(b *testing.B) {
	c, _ := voiceClient(b, server.Config{})
	var wavs [][]byte
	var audio time.Duration
	for _, text := range benchCommands {
		w := flite(b, text)
		wavs = append(wavs, w)
		audio += time.Duration(len(w)-44) * time.Second / 32000
	}
	run := func(streams int) float64 {
		start := time.Now()
		var wg sync.WaitGroup
		for range streams {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, wav := range wavs {
					ans, err := c.Dialogue.Stream(ctxT(b), bytes.NewReader(wav), 16000, 0)
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, ans.Audio)
					ans.Audio.Close()
				}
			}()
		}
		wg.Wait()
		return float64(streams) * audio.Seconds() / time.Since(start).Seconds()
	}
	var one, four float64
	for b.Loop() {
		one = run(1)
		four = run(4)
	}
	b.ReportMetric(one, "audio-s/s-1-stream")
	b.ReportMetric(four, "audio-s/s-4-streams")
	b.ReportMetric(four/one, "ratio-4/1")
}
