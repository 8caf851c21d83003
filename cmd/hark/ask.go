package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/harkhq/hark/audio"
	"github.com/harkhq/hark/client"
)

// maxAskFile bounds the WAV file hark ask reads (10 minutes of 16 kHz speech is 19 MB).
const maxAskFile = 32 << 20

// cmdAsk sends one spoken turn from a WAV file: 16-bit PCM mono at 16 or 8 kHz, what the
// platform's recogniser takes.
func cmdAsk(e *cliEnv, args []string) error {
	f := e.flags("ask", "[--json] [--explain] [--ref N] FILE.wav", `Sends a spoken turn from a WAV file (16-bit PCM mono,
16 or 8 kHz) and prints the answer on stdout; what was heard, the next actions and the ref go to
stderr. --json prints the whole answer as JSON instead. --explain adds how the query was read,
with each reading of the audio the platform weighed, its score, the chosen one and why.`)
	asJSON := f.Bool("json", false, "print the whole answer as JSON")
	explain := f.Bool("explain", false, "also show how the audio was read: its readings, the chosen one and why, and the intent, pattern and slots")
	ref := f.Int64("ref", 0, "continue the conversation of the answer with ref `N`")
	rest, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return f.usageError("give one FILE.wav")
	}
	pcm, rate, err := readSpokenFile(rest[0])
	if err != nil {
		return err
	}
	p, err := e.platform()
	if err != nil {
		return err
	}
	if err := needSession(p); err != nil {
		return err
	}
	wav := audio.EncodeWAV(pcm, rate)
	var opts []client.QueryOption
	if *explain {
		opts = append(opts, client.Explain())
	}
	resp, err := p.Client.Dialogue.Audio(e.ctx, bytes.NewReader(wav), int64(len(wav)), rate, *ref, opts...)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, resp)
	}
	heard := strings.TrimSpace(resp.Responses.Query)
	if heard == "" {
		heard = "(nothing recognised)"
	}
	fmt.Fprintln(e.stderr, "heard:", heard)
	if err := printAnswer(e.stdout, e.stderr, resp); err != nil {
		return err
	}
	if *explain && resp.Explain != nil { // nothing recognised has nothing to explain
		printExplanation(e.stdout, resp.Explain)
	}
	return nil
}

// readSpokenFile reads and checks a WAV file before anything is sent, so a wrong file gets
// a plain reason rather than the platform's refusal.
func readSpokenFile(path string) (pcm []byte, rate int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if st.IsDir() {
		return nil, 0, fmt.Errorf("%s is a directory, not a WAV file", path)
	}
	if st.Size() > maxAskFile {
		return nil, 0, fmt.Errorf("%s is %d bytes: hark ask takes WAV files up to %d bytes", path, st.Size(), maxAskFile)
	}
	pcm, rate, err = audio.DecodeWAV(f)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	if rate != 16000 && rate != 8000 {
		return nil, 0, fmt.Errorf("%s is sampled at %d Hz: the platform takes 16000 or 8000 Hz (sox in.wav -r 16000 -c 1 -b 16 out.wav)", path, rate)
	}
	if len(pcm) == 0 {
		return nil, 0, fmt.Errorf("%s holds no audio", path)
	}
	return pcm, rate, nil
}
