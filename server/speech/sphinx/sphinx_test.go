package sphinx

import (
	"os"
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
