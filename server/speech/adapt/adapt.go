// Package adapt estimates a speaker's MLLR transform: one affine map of the
// acoustic model's Gaussian means per feature stream, learnt from a few of
// the speaker's recognised utterances, which the decoders then apply
// (sphinx.Decoder.Transform). It is how a recogniser trained on one kind
// of voice and channel comes to hear another: measured on flite's kal16
// voice with the full English model, 40 of its own recognised commands
// took word errors from 20.4 to 16.3 %, and at 8 kHz, where the wideband
// model hears an empty upper band, from 45.9 to 25.7 % (README, "Speaker
// adaptation").
//
// The estimate is sphinxtrain's, run as child processes, so that neither
// harkd nor a speech worker runs native training code: sphinx_fe computes
// the cepstra (under the speaker's frequency warp), bw aligns them with
// the transcripts and accumulates the Gaussians' statistics, and
// mllr_solve solves for the transform. The transcripts are what the
// recogniser heard, not what was said (unsupervised adaptation): the
// measurement above used them, and reference texts did no better.
//
// bw needs two files the Debian model does not ship in its format: the
// model definition as text and the mixture weights as floats (Debian
// ships them quantised, as "sendump"). Prepare writes both once per model
// into a cache directory.
package adapt

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/harkhq/hark/server/speech/wav"
)

// Tools are the programs an estimate runs, with their Debian paths
// (sphinxbase-utils, pocketsphinx, sphinxtrain).
var Tools = struct{ FE, MdefConvert, BW, Solve string }{
	FE:          "sphinx_fe",
	MdefConvert: "pocketsphinx_mdef_convert",
	BW:          "/usr/lib/sphinxtrain/bw",
	Solve:       "/usr/lib/sphinxtrain/mllr_solve",
}

// Available says why adaptation cannot run here, or nil.
func Available() error {
	for _, t := range []string{Tools.FE, Tools.MdefConvert, Tools.BW, Tools.Solve} {
		if _, err := exec.LookPath(t); err != nil {
			return fmt.Errorf("speaker adaptation needs %s (Debian packages sphinxbase-utils, pocketsphinx, sphinxtrain): %w", t, err)
		}
	}
	return nil
}

// Model is an acoustic model made ready for bw.
type Model struct {
	HMM  string // the model's directory (means, variances, sendump, ...)
	Dict string // the pronunciation dictionary the decoders use
	// Known says whether Dict has a word: bw cannot align a text with a
	// word it cannot pronounce, so Estimate leaves such utterances out
	// (nil: every word is taken to be there).
	Known func(word string) bool
	dir   string // mdef.txt and mixture_weights
}

// Prepare readies the model in hmm for estimates, writing its text model
// definition and float mixture weights under cache (once per model: the
// directory is named by the model's files).
func Prepare(hmm, dict string, known func(string) bool, cache string) (*Model, error) {
	id, err := modelID(hmm)
	if err != nil {
		return nil, err
	}
	m := &Model{HMM: hmm, Dict: dict, Known: known, dir: filepath.Join(cache, "adapt-"+id)}
	if _, err := os.Stat(filepath.Join(m.dir, "mixture_weights")); err == nil {
		return m, nil
	}
	tmp, err := os.MkdirTemp(cache, ".adapt-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if out, err := exec.Command(Tools.MdefConvert, "-text", filepath.Join(hmm, "mdef"), filepath.Join(tmp, "mdef.txt")).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("adapt: converting the model definition: %v: %s", err, lastLine(out))
	}
	if err := writeMixtureWeights(filepath.Join(hmm, "sendump"), filepath.Join(tmp, "mixture_weights")); err != nil {
		return nil, err
	}
	// Whole or not at all: another process may be preparing the same.
	if err := os.Rename(tmp, m.dir); err != nil && !errors.Is(err, os.ErrExist) {
		if _, serr := os.Stat(filepath.Join(m.dir, "mixture_weights")); serr != nil {
			return nil, err
		}
	}
	return m, nil
}

// modelID names a model by the hash of its definition and weights.
func modelID(hmm string) (string, error) {
	h := sha256.New()
	for _, name := range []string{"mdef", "sendump", "means"} {
		f, err := os.Open(filepath.Join(hmm, name))
		if err != nil {
			return "", fmt.Errorf("adapt: %w", err)
		}
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", fmt.Errorf("adapt: %w", err)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// writeMixtureWeights converts pocketsphinx's quantised mixture weights
// (sendump) into sphinxtrain's float ones. sendump holds, after a header
// of length-prefixed strings, the codeword and senone counts and then one
// byte per feature stream, codeword and senone, in that order: the
// weight's negative logarithm in base 1.0001, shifted right by 10 bits
// (pocketsphinx's SENSCR_SHIFT). mixture_weights is an s3 file of floats
// by senone, stream and codeword. The weights are not renormalised: bw
// reads them as pocketsphinx does.
func writeMixtureWeights(sendump, out string) error {
	b, err := os.ReadFile(sendump)
	if err != nil {
		return fmt.Errorf("adapt: %w", err)
	}
	bad := func(why string) error { return fmt.Errorf("adapt: %s is not a sendump file: %s", sendump, why) }
	off, streams := 0, 0
	for {
		if off+4 > len(b) {
			return bad("the header does not end")
		}
		n := int(binary.LittleEndian.Uint32(b[off:]))
		off += 4
		if n == 0 {
			break
		}
		if n > 1<<16 || off+n > len(b) {
			return bad("a header string runs past the end")
		}
		s := strings.TrimRight(string(b[off:off+n]), "\x00")
		if v, ok := strings.CutPrefix(s, "feature_count "); ok {
			streams, _ = strconv.Atoi(v)
		}
		if v, ok := strings.CutPrefix(s, "cluster_count "); ok && v != "0" {
			return bad("clustered weights are not supported")
		}
		off += n
	}
	if off+8 > len(b) {
		return bad("no dimensions")
	}
	codewords, senones := int(binary.LittleEndian.Uint32(b[off:])), int(binary.LittleEndian.Uint32(b[off+4:]))
	off += 8
	if streams <= 0 || codewords <= 0 || senones <= 0 || len(b)-off != streams*codewords*senones {
		return bad(fmt.Sprintf("%d streams × %d codewords × %d senones do not fill its %d bytes", streams, codewords, senones, len(b)-off))
	}
	data := b[off:]
	var weight [256]float32
	for q := range weight {
		weight[q] = float32(math.Pow(1.0001, -float64(q<<10)))
	}
	f, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("adapt: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<16)
	w.WriteString("s3\nversion 1.0\nendhdr\n")
	for _, v := range []uint32{0x11223344, uint32(senones), uint32(streams), uint32(codewords), uint32(senones * streams * codewords)} {
		binary.Write(w, binary.LittleEndian, v)
	}
	var buf [4]byte
	for s := range senones {
		for st := range streams {
			for c := range codewords {
				binary.LittleEndian.PutUint32(buf[:], math.Float32bits(weight[data[(st*codewords+c)*senones+s]]))
				w.Write(buf[:])
			}
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("adapt: %w", err)
	}
	return f.Close()
}

// Utterance is one recognised utterance of a speaker: 16 kHz audio and
// what the recogniser heard.
type Utterance struct {
	PCM  []int16
	Text string
}

// Estimate computes a speaker's transform from their utterances, under
// the front end's frequency warp (1 for the model's own filters).
// Utterances with a word outside the dictionary are left out.
func (m *Model) Estimate(ctx context.Context, utts []Utterance, warp float64) (Transform, error) {
	utts = slices.DeleteFunc(slices.Clone(utts), func(u Utterance) bool {
		words := strings.Fields(u.Text)
		return len(words) == 0 || len(u.PCM) == 0 || (m.Known != nil && slices.ContainsFunc(words, func(w string) bool { return !m.Known(w) }))
	})
	if len(utts) == 0 {
		return Transform{}, errors.New("adapt: no utterance whose words are all in the dictionary")
	}
	dir, err := os.MkdirTemp("", "hark-adapt-")
	if err != nil {
		return Transform{}, err
	}
	defer os.RemoveAll(dir)
	var ctl, trans strings.Builder
	for i, u := range utts {
		id := fmt.Sprintf("u%03d", i)
		if err := os.WriteFile(filepath.Join(dir, id+".wav"), wav.Encode(u.PCM, 16000), 0o600); err != nil {
			return Transform{}, err
		}
		fmt.Fprintln(&ctl, id)
		fmt.Fprintf(&trans, "<s> %s </s> (%s)\n", strings.Join(strings.Fields(u.Text), " "), id)
	}
	for name, text := range map[string]string{"ctl": ctl.String(), "trans": trans.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			return Transform{}, err
		}
	}
	hmm := func(name string) string { return filepath.Join(m.HMM, name) }
	steps := [][]string{
		{Tools.FE, "-argfile", hmm("feat.params"), "-samprate", "16000", "-warp_params", strconv.FormatFloat(warp, 'f', -1, 64),
			"-c", filepath.Join(dir, "ctl"), "-di", dir, "-do", dir, "-ei", "wav", "-eo", "mfc", "-mswav", "yes"},
		{Tools.BW, "-moddeffn", filepath.Join(m.dir, "mdef.txt"), "-mixwfn", filepath.Join(m.dir, "mixture_weights"),
			"-meanfn", hmm("means"), "-varfn", hmm("variances"), "-tmatfn", hmm("transition_matrices"),
			"-ts2cbfn", ".ptm.", "-feat", "1s_c_d_dd", "-svspec", "0-12/13-25/26-38", "-cmn", "current", "-agc", "none",
			"-dictfn", m.Dict, "-fdictfn", hmm("noisedict"), "-ctlfn", filepath.Join(dir, "ctl"),
			"-lsnfn", filepath.Join(dir, "trans"), "-cepdir", dir, "-accumdir", dir, "-timing", "no"},
		{Tools.Solve, "-meanfn", hmm("means"), "-varfn", hmm("variances"), "-outmllrfn", filepath.Join(dir, "mllr_matrix"), "-accumdir", dir},
	}
	for _, s := range steps {
		cmd := exec.CommandContext(ctx, s[0], s[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			if ctx.Err() != nil {
				return Transform{}, ctx.Err()
			}
			return Transform{}, fmt.Errorf("adapt: %s: %v: %s", filepath.Base(s[0]), err, lastLine(out))
		}
	}
	text, err := os.ReadFile(filepath.Join(dir, "mllr_matrix"))
	if err != nil {
		return Transform{}, fmt.Errorf("adapt: mllr_solve wrote no transform: %w", err)
	}
	t, err := ParseTransform(string(text))
	if err != nil {
		return Transform{}, err
	}
	// mllr_solve writes the identity when bw aligned nothing (audio that
	// does not say its text).
	if t.ID() == t.identity().ID() {
		return Transform{}, errors.New("adapt: no utterance could be aligned with its text")
	}
	return t, nil
}

// lastLine is the last non-empty line of a tool's output, its likely error.
func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
