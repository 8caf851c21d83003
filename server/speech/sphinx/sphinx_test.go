package sphinx

import (
	"math"
	"os"
	"slices"
	"testing"
)

// NBest reads only an ended utterance's lattice, and an utterance with no
// speech has none: both give nothing rather than crash the process (the
// readings of real speech are tested in package speech).
func TestNBestWithoutSpeech(t *testing.T) {
	const dir = "/usr/share/pocketsphinx/model/en-us"
	if _, err := os.Stat(dir + "/en-us.lm.bin"); err != nil {
		t.Skip("pocketsphinx-en-us is not installed")
	}
	d, err := NewDecoder(Config{HMM: dir + "/en-us", Dict: dir + "/cmudict-en-us.dict", LM: dir + "/en-us.lm.bin", NoFlatPass: true})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if nb := d.NBest(5); nb != nil {
		t.Errorf("before any utterance: %+v", nb)
	}
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	if nb := d.NBest(5); nb != nil {
		t.Errorf("during an utterance: %+v", nb)
	}
	if err := d.ProcessCepstra(make([]float32, 20*d.CepstrumSize())); err != nil { // 200 ms of flat cepstra
		t.Fatal(err)
	}
	if err := d.End(); err != nil {
		t.Fatal(err)
	}
	d.Hyp()
	for _, h := range d.NBest(5) {
		if h.Frames <= 0 || h.Frames > 20 || h.Score > 0 {
			t.Errorf("reading of flat cepstra: %+v", h)
		}
	}
	if nb := d.NBest(0); nb != nil {
		t.Errorf("zero readings asked, %d given", len(nb))
	}
}

// Args override pocketsphinx's search settings; an unknown name, a value
// of the wrong type or an odd count is refused.
func TestArgs(t *testing.T) {
	const dir = "/usr/share/pocketsphinx/model/en-us"
	if _, err := os.Stat(dir + "/en-us.lm.bin"); err != nil {
		t.Skip("pocketsphinx-en-us is not installed")
	}
	base := Config{HMM: dir + "/en-us", Dict: dir + "/cmudict-en-us.dict", LM: dir + "/en-us.lm.bin", NoFlatPass: true}
	d, err := NewDecoder(base)
	if err != nil {
		t.Fatal(err)
	}
	if lw := d.FloatSetting("-lw"); lw != 6.5 {
		t.Errorf("default -lw %g, want 6.5", lw)
	}
	d.Close()
	c := base
	c.Args = []string{"-lw", "9.5", "-wip", "0.25"}
	if d, err = NewDecoder(c); err != nil {
		t.Fatal(err)
	}
	if lw, wip := d.FloatSetting("-lw"), d.FloatSetting("-wip"); lw != 9.5 || wip != 0.25 {
		t.Errorf("-lw %g -wip %g, want 9.5 and 0.25", lw, wip)
	}
	d.Close()
	for _, args := range [][]string{{"-lw"}, {"-nosuchsetting", "1"}, {"-lw", "heavy"}} {
		c.Args = args
		if d, err := NewDecoder(c); err == nil {
			d.Close()
			t.Errorf("%q accepted", args)
		}
	}
}

// A front end's warp changes its filters and only its own: the same warp
// gives the same cepstra again after other warps and after a decoder was
// made in between (sphinxbase keeps the warp it parses in static state,
// and a decoder's own front end used to leave it neutral while the next
// equal warp was skipped as already parsed); a warp out of range is refused.
func TestFrontendWarp(t *testing.T) {
	const dir = "/usr/share/pocketsphinx/model/en-us"
	if _, err := os.Stat(dir + "/en-us.lm.bin"); err != nil {
		t.Skip("pocketsphinx-en-us is not installed")
	}
	cfg := Config{HMM: dir + "/en-us", Dict: dir + "/cmudict-en-us.dict", LM: dir + "/en-us.lm.bin", NoFlatPass: true}
	d, err := NewDecoder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	// A second of a rising tone with a little noise: energy in every band.
	samples := make([]int16, 16000)
	seed := uint32(1)
	for i := range samples {
		seed = seed*1664525 + 1013904223
		f := 200 + 3000*float64(i)/float64(len(samples))
		samples[i] = int16(6000*math.Sin(2*math.Pi*f*float64(i)/16000) + float64(int32(seed>>16)%400))
	}
	cepstra := func(warp float64) []float32 {
		t.Helper()
		fe, err := NewFrontend(d, warp)
		if err != nil {
			t.Fatal(err)
		}
		defer fe.Close()
		if err := fe.Start(); err != nil {
			t.Fatal(err)
		}
		c, err := fe.Process(nil, samples)
		if err != nil {
			t.Fatal(err)
		}
		if c, err = fe.End(c); err != nil {
			t.Fatal(err)
		}
		if len(c) == 0 {
			t.Fatal("no frames")
		}
		return c
	}
	plain, warped := cepstra(1), cepstra(1.2)
	if slices.Equal(plain, warped) {
		t.Fatal("a warp of 1.2 left the cepstra as they were")
	}
	if !slices.Equal(cepstra(0.88), cepstra(0.88)) || slices.Equal(cepstra(0.88), warped) {
		t.Fatal("warps 0.88 and 1.2 are not each their own")
	}
	cepstra(1.2)                  // the last warp parsed...
	other, err := NewDecoder(cfg) // ...then a front end made with the model's filters
	if err != nil {
		t.Fatal(err)
	}
	other.Close()
	if !slices.Equal(cepstra(1.2), warped) {
		t.Error("after a decoder was made, a warp of 1.2 gave other cepstra")
	}
	if !slices.Equal(cepstra(1), plain) {
		t.Error("the model's own filters changed after other warps")
	}
	for _, bad := range []float64{0, -1, 0.3, 2.5, math.NaN()} {
		if fe, err := NewFrontend(d, bad); err == nil {
			fe.Close()
			t.Errorf("warp %g accepted", bad)
		}
	}
}

// Spellings rewrite whole words of a hypothesis and nothing inside a word.
func TestRespell(t *testing.T) {
	d := &Decoder{spell: map[string]string{"neighbour": "neighbor", "colour": "color"}}
	for in, want := range map[string]string{
		"call my neighbour":        "call my neighbor",
		"colour neighbour colours": "color neighbor colours",
		"neighbourhood watch":      "neighbourhood watch",
		"":                         "",
	} {
		if got := d.respell(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
	if got := (&Decoder{}).respell("call my neighbour"); got != "call my neighbour" {
		t.Errorf("without spellings: %q", got)
	}
}
