package flow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/harkhq/hark/audio"
)

// synthesize speaks text as a user would: flite with one of its voices for English (the
// voices the recogniser is measured with), espeak-ng for Spanish, which flite cannot speak.
func synthesize(ctx context.Context, lang, voice, text string) (pcm []byte, rate int, err error) {
	if lang == "es" {
		return espeak(ctx, text)
	}
	return flite(ctx, voice, text)
}

func flite(ctx context.Context, voice, text string) ([]byte, int, error) {
	if _, err := exec.LookPath("flite"); err != nil {
		return nil, 0, errors.New("flite is not installed (apt-get install flite): it speaks English 'say' turns")
	}
	// flite writes WAV only to a file it can seek in.
	tmp, err := os.CreateTemp("", "hark-flow-*.wav")
	if err != nil {
		return nil, 0, err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	// -t takes the next argument as text even when it starts with a dash.
	out, err := exec.CommandContext(ctx, "flite", "-voice", voice, "-t", text, "-o", tmp.Name()).CombinedOutput()
	if err != nil {
		return nil, 0, fmt.Errorf("flite -voice %s: %v %s", voice, err, strings.TrimSpace(string(out)))
	}
	f, err := os.Open(tmp.Name())
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	pcm, rate, err := audio.DecodeWAV(f)
	if err != nil {
		return nil, 0, fmt.Errorf("flite -voice %s wrote no usable WAV: %w", voice, err)
	}
	return pcm, rate, nil
}

func espeak(ctx context.Context, text string) ([]byte, int, error) {
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		return nil, 0, errors.New("espeak-ng is not installed (apt-get install espeak-ng): it speaks Spanish 'say' turns")
	}
	// The text goes on stdin so that nothing in it is read as an option.
	cmd := exec.CommandContext(ctx, "espeak-ng", "-v", "es", "--stdout")
	cmd.Stdin = strings.NewReader(text)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, 0, fmt.Errorf("espeak-ng -v es: %v %s", err, strings.TrimSpace(stderr.String()))
	}
	// espeak-ng --stdout leaves a placeholder size in the header; DecodeWAV clamps it.
	pcm, rate, err := audio.DecodeWAV(bytes.NewReader(out))
	if err != nil {
		return nil, 0, fmt.Errorf("espeak-ng wrote no usable WAV: %w", err)
	}
	return pcm, rate, nil
}

// readWAV reads a turn's recorded file, relative to the flow file's directory.
func readWAV(flowPath, name string) ([]byte, int, error) {
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(flowPath), name)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, 0, err
	} else if st.IsDir() {
		return nil, 0, fmt.Errorf("%s is a directory, not a WAV file", p)
	}
	pcm, rate, err := audio.DecodeWAV(f)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", p, err)
	}
	if len(pcm) == 0 {
		return nil, 0, fmt.Errorf("%s holds no audio", p)
	}
	return pcm, rate, nil
}
