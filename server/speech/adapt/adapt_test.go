package adapt

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/server/speech/wav"
)

const modelDir = "/usr/share/pocketsphinx/model/en-us"

// ready skips a test when the model or sphinxtrain is missing, and
// prepares the model in a fresh cache.
func ready(t testing.TB) *Model {
	t.Helper()
	if _, err := os.Stat(filepath.Join(modelDir, "en-us", "sendump")); err != nil {
		t.Skip("the English model is not installed (Debian package pocketsphinx-en-us)")
	}
	if err := Available(); err != nil {
		t.Skip(err)
	}
	dict := filepath.Join(modelDir, "cmudict-en-us.dict")
	m, err := Prepare(filepath.Join(modelDir, "en-us"), dict, dictionary(t, dict), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// dictionary is the words of a pronunciation dictionary.
func dictionary(t testing.TB, path string) func(string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	words := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			w, _, _ := strings.Cut(f[0], "(")
			words[w] = true
		}
	}
	return func(w string) bool { return words[w] }
}

// pcm synthesises text with flite's kal16 voice (16 kHz).
func pcm(t testing.TB, text string) []int16 {
	t.Helper()
	if _, err := exec.LookPath("flite"); err != nil {
		t.Skip("flite is not installed (Debian package flite): no speech fixtures")
	}
	name := filepath.Join(t.TempDir(), "u.wav")
	if out, err := exec.Command("flite", "-voice", "kal16", "-t", text, "-o", name).CombinedOutput(); err != nil {
		t.Fatalf("flite %q: %v: %s", text, err, out)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := wav.Decode(b, 16000)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var commands = []string{
	"set an alarm for seven thirty", "what is the weather like tomorrow", "play some jazz music",
	"call my mother", "turn the volume down", "start a timer for ten minutes", "what time is it",
	"send a message to anna", "how far is the airport", "cancel all my alarms",
}

// The converted weights are pocketsphinx's own: each is the dequantised
// byte of sendump at its senone, stream and codeword, and a senone's
// weights in a stream sum to about one.
func TestMixtureWeightsDequantiseSendump(t *testing.T) {
	m := ready(t)
	b, err := os.ReadFile(filepath.Join(m.dir, "mixture_weights"))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte("endhdr\n"))
	if i < 0 {
		t.Fatal("no s3 header")
	}
	body := b[i+len("endhdr\n"):]
	var dims [5]uint32
	binary.Read(bytes.NewReader(body), binary.LittleEndian, &dims)
	if dims[0] != 0x11223344 || dims[1] != 5126 || dims[2] != 3 || dims[3] != 128 || dims[4] != 5126*3*128 {
		t.Fatalf("header %x, want magic, 5126 senones, 3 streams, 128 codewords", dims)
	}
	w := body[20:]
	if len(w) != 4*int(dims[4]) {
		t.Fatalf("%d bytes of weights, want %d", len(w), 4*dims[4])
	}
	send, err := os.ReadFile(filepath.Join(modelDir, "en-us", "sendump"))
	if err != nil {
		t.Fatal(err)
	}
	data := send[len(send)-5126*3*128:]
	at := func(s, st, c int) float64 {
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(w[4*((s*3+st)*128+c):])))
	}
	for _, s := range []int{0, 1, 2500, 5125} {
		for st := range 3 {
			sum := 0.0
			for c := range 128 {
				want := math.Pow(1.0001, -float64(int(data[(st*128+c)*5126+s])<<10))
				if got := at(s, st, c); math.Abs(got-want) > 1e-6*want {
					t.Fatalf("senone %d stream %d codeword %d: %g, want %g", s, st, c, got, want)
				}
				sum += at(s, st, c)
			}
			if sum < 0.8 || sum > 1.01 {
				t.Errorf("senone %d stream %d: weights sum to %.3f", s, st, sum)
			}
		}
	}
}

func TestPrepareRefusesAModelWithoutWeights(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
	hmm := t.TempDir()
	for _, name := range []string{"mdef", "means"} {
		os.WriteFile(filepath.Join(hmm, name), []byte("x"), 0o600)
	}
	os.WriteFile(filepath.Join(hmm, "sendump"), []byte{3, 0, 0, 0, 'a', 'b', 0}, 0o600)
	if _, err := Prepare(hmm, "dict", nil, t.TempDir()); err == nil {
		t.Fatal("a model of garbage prepared")
	}
	if err := writeMixtureWeights(filepath.Join(hmm, "sendump"), filepath.Join(hmm, "out")); err == nil || !strings.Contains(err.Error(), "not a sendump file") {
		t.Fatalf("got %v, want the file named as no sendump", err)
	}
}

// A speaker's recognised commands give a transform that moves the means
// (it is not the identity) by amounts a decoder can take, and the same
// audio and texts give the same transform.
func TestEstimateLearnsATransform(t *testing.T) {
	m := ready(t)
	var utts []Utterance
	for _, c := range commands {
		utts = append(utts, Utterance{PCM: pcm(t, c), Text: c})
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tr, err := m.Estimate(ctx, utts, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Streams) != 3 || len(tr.Streams[0].B) != 13 {
		t.Fatalf("%d streams, want 3 of 13", len(tr.Streams))
	}
	if tr.ID() == Identity(13, 13, 13).ID() {
		t.Fatal("the transform is the identity")
	}
	moved := 0.0
	for _, s := range tr.Streams {
		for i := range s.A {
			moved += math.Abs(s.A[i][i]-1) + math.Abs(s.B[i])
		}
	}
	if moved < 0.1 || moved > 1000 {
		t.Fatalf("the transform moves the means by %g in all", moved)
	}
	again, err := m.Estimate(ctx, utts, 1)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID() != tr.ID() {
		t.Fatal("the same utterances gave another transform")
	}
	warped, err := m.Estimate(ctx, utts, 1.1)
	if err != nil {
		t.Fatal(err)
	}
	if warped.ID() == tr.ID() {
		t.Fatal("the warp did not reach the front end")
	}
}

// A text the dictionary cannot pronounce, audio of nothing, or a
// cancelled context end in an error, not in a transform.
func TestEstimateBadInput(t *testing.T) {
	m := ready(t)
	ctx := context.Background()
	if _, err := m.Estimate(ctx, nil, 1); err == nil {
		t.Error("no utterances gave a transform")
	}
	if _, err := m.Estimate(ctx, []Utterance{{PCM: pcm(t, "hello"), Text: "zzqxv blorft"}}, 1); err == nil {
		t.Error("words outside the dictionary gave a transform")
	}
	if tr, err := m.Estimate(ctx, []Utterance{{PCM: make([]int16, 16000), Text: "hello there"}}, 1); err == nil {
		t.Errorf("a second of silence read as words gave a transform: %v", tr)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := m.Estimate(cancelled, []Utterance{{PCM: pcm(t, commands[0]), Text: commands[0]}}, 1); err == nil {
		t.Error("a cancelled estimate gave a transform")
	}
}

// BenchmarkEstimate: one speaker's estimate from ten recognised commands
// (sphinx_fe, bw, mllr_solve in child processes); x-audio is the wall time
// over the audio's duration.
func BenchmarkEstimate(b *testing.B) {
	m := ready(b)
	var utts []Utterance
	samples := 0
	for _, c := range commands {
		utts = append(utts, Utterance{PCM: pcm(b, c), Text: c})
		samples += len(utts[len(utts)-1].PCM)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := m.Estimate(context.Background(), utts, 1); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/(float64(samples)/16000), "x-audio")
}

func FuzzParseTransform(f *testing.F) {
	f.Add(Identity(13, 13, 13).String())
	f.Add("1\n1\n2\n1 0\n0 1\n0.5 -0.5\n1 1\n")
	f.Add("1 2 1 nan 0 1 1 1 0 1")
	f.Fuzz(func(t *testing.T, text string) {
		tr, err := ParseTransform(text)
		if err != nil {
			return
		}
		again, err := ParseTransform(tr.String())
		if err != nil || again.ID() != tr.ID() {
			t.Fatalf("%q parsed, but its own text does not parse back the same: %v", text, err)
		}
	})
}
