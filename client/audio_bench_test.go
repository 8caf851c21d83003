package client_test

import (
	"bytes"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/speech"
)

// benchCommands are 2-3 s in-domain commands (flite kal16).
var benchCommands = []string{
	"what's the weather like in london tomorrow",
	"set a timer for twenty minutes",
	"set an alarm for seven thirty am",
	"play some classical music",
}

// benchShortCommands are commands under one second of speech (flite kal16).
var benchShortCommands = []string{
	"stop",
	"what time is it",
	"call mom",
	"thank you",
	"volume up",
	"lights off",
}

// BenchmarkStreamLatency streams each command at real-time pace, as a
// microphone would, and measures from the last request byte to the
// response headers (the dialogue answer) and to the first MP3 byte of the
// spoken answer. It reports the medians over all runs, for the 2-3 s
// commands and the sub-second ones, on three platforms in the same run:
// one decoding short commands only after their end (SpeechLateStart, as
// before their early start), one whose mixed decoder searches a short
// command after its end while the full one started early (SpeechShortDecoder
// "mixed", as before the domain decoder took short commands over), one
// whose mixed decoder has pocketsphinx's own search settings (as before
// its wider beams), and one as shipped. Each platform's user speaks all the
// commands in turn, so from the second on the server has the speaker's
// cepstral prior. They alternate command by command, so they share the
// machine's load.
func BenchmarkStreamLatency(b *testing.B) {
	platforms := []struct {
		name string
		cfg  server.Config
	}{
		{"late", server.Config{SpeechLateStart: true}},
		{"mixed", server.Config{SpeechShortDecoder: "mixed"}},
		{"narrow", server.Config{SpeechSearchArgs: speech.PocketsphinxSearchArgs}},
		{"early", server.Config{}},
	}
	clients := make([]*client.Client, len(platforms))
	for i, p := range platforms {
		clients[i], _ = voiceClient(b, p.cfg)
	}
	type command struct {
		wav   []byte
		short bool
	}
	var commands []command
	for _, text := range benchCommands {
		commands = append(commands, command{flite(b, text), false})
	}
	for _, text := range benchShortCommands {
		commands = append(commands, command{flite(b, text), true})
	}
	// times[platform][short] are the waits for the headers and the audio.
	type waits struct{ headers, audio []time.Duration }
	times := make([][2]waits, len(platforms))
	for b.Loop() {
		for _, cmd := range commands {
			for p, c := range clients {
				body := &pacedWAV{data: cmd.wav}
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
				w := &times[p][btoi(cmd.short)]
				w.headers = append(w.headers, gotHeaders.Sub(body.lastSent))
				w.audio = append(w.audio, gotAudio.Sub(body.lastSent))
			}
		}
	}
	for p, platform := range platforms {
		for short, length := range []string{"2-3s", "short"} {
			w := times[p][short]
			b.ReportMetric(median(w.headers).Seconds()*1000, "ms-to-headers-p50-"+length+"-"+platform.name)
			b.ReportMetric(median(w.audio).Seconds()*1000, "ms-to-audio-p50-"+length+"-"+platform.name)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
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
