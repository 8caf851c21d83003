package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/flow"
)

const flowUsage = `usage: hark [global flags] flow run [flags] FILE...

Runs each flow file (YAML: name, lang, voice, rate, turns of say/wav/type with
expect: heard, action, data, answer) against the platform: the embedded one, or
--base-url given before "flow". 'say' turns are synthesised (flite, espeak-ng
for Spanish) and streamed to /query/audio/stream at the pace of speech; the
conversation's ref is carried from turn to turn. Without a signed-in user, each
voice speaks as an anonymous speaker of its own, new every run, so what the
platform learns of one voice never shapes how another is heard, nor what it
learnt in one run how the next run hears. On the embedded platform the run
first waits for the speech engines to start (on a new machine they build their
language models, about 20 s), which --timeout does not count.

Exit status: 0 when every expectation holds, 1 when one does not (or a turn
could not run), 2 for usage errors and flow files that do not parse.

flags:
`

const flowRecordUsage = `usage: hark [global flags] flow record [--force] FILE

Opens the console (the same as plain hark) and writes every answered turn of
the session to FILE as a flow that 'hark flow run FILE' replays: typed turns
as 'type', spoken turns as 'wav' with their audio saved beside FILE as
NAME-turn-N.wav (16-bit mono, 16 kHz), and what happened as expect: heard
(the query as recognised, anchored, any case), action (the first next
action's code) and answer (the answer's start up to the first time, day or
month, numbers generalised). FILE is rewritten after each turn (temp file and
rename), so quitting or a crash keeps every answered turn. The status line
shows where it records. Review the expectations before committing the flow.

flags:
`

const flowRecordShortUsage = "usage: hark flow record [--force] FILE (hark flow record --help)"

const flowShortUsage = "usage: hark flow record [--force] FILE | hark flow run [--voices V,...] [--rate 8000] [--json] [--junit OUT.xml] [--timeout 30s] [--pace real|fast] FILE... (hark flow run --help)"

// cmdFlow is `hark flow run`. Flags and files are checked before the platform starts, so a
// usage error or a broken flow file costs nothing.
func cmdFlow(e *cliEnv, args []string) error {
	ctx, stdout, stderr := e.ctx, e.stdout, e.stderr
	fs, o := flowFlags(stderr)
	help := func() {
		fmt.Fprint(stdout, flowUsage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
	}
	if len(args) > 0 && args[0] == "record" {
		return cmdFlowRecord(e, args[1:])
	}
	if len(args) == 0 || args[0] != "run" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			help()
			return nil
		}
		fmt.Fprintln(stderr, flowShortUsage)
		return exitError{2}
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			help()
			return nil
		}
		fmt.Fprintln(stderr, flowShortUsage)
		return exitError{2}
	}
	if err := o.check(fs.NArg()); err != nil {
		fmt.Fprintln(stderr, "hark flow run:", err)
		fmt.Fprintln(stderr, flowShortUsage)
		return exitError{2}
	}
	var flows []*flow.Flow
	bad := false
	for _, path := range fs.Args() {
		f, err := flow.Load(path)
		if err != nil {
			fmt.Fprintln(stderr, err)
			bad = true
			continue
		}
		flows = append(flows, f)
	}
	if bad {
		return exitError{2}
	}

	p, err := e.platform()
	if err != nil {
		return err
	}
	if err := waitForSpeech(ctx, p, flows, stderr); err != nil {
		return err
	}
	// Who speaks. A signed-in user speaks every flow. Otherwise each voice is a speaker of
	// its own, signed in anonymously under the console's identity, the voice's name and
	// this run: harkd learns a speaker's voice from their earlier utterances (cepstral
	// mean, frequency warp, transform) and keeps it (server/speakers), so one voice's must
	// not decide how the next voice's first turns are heard, nor one run's how the next
	// run's are: a run hears its flows the same way every time. If signing in fails (a
	// platform that cannot be reached), each turn says why.
	var anonID string
	if p.Client.Token() == "" {
		if anonID, err = p.Sessions.ExternalID(); err != nil {
			fmt.Fprintln(stderr, "hark flow run: no anonymous id:", err)
		} else {
			anonID += "-flow-" + strconv.FormatInt(time.Now().UnixNano(), 36)
		}
	}
	runners := map[string]*flow.Runner{}
	runnerFor := func(voice string) *flow.Runner {
		if r := runners[voice]; r != nil {
			return r
		}
		c := p.Client
		if anonID != "" {
			speaker, err := client.New(p.Client.Config())
			if err == nil {
				speaker.SetRequestInfo(p.Client.RequestInfo())
				_, _, err = speaker.Auth.Anonymous(ctx, anonID+"-"+voice, "hark-flow", "")
			}
			if err != nil {
				fmt.Fprintf(stderr, "hark flow run: could not sign in the speaker of %s: %v\n", voice, err)
			} else {
				c = speaker
			}
		}
		r := &flow.Runner{Client: c, Pace: flow.Pace(o.pace), Timeout: o.timeout}
		runners[voice] = r
		return r
	}

	var results []*flow.Result
	enc := json.NewEncoder(stdout)
	for _, f := range flows {
		voices := []string{f.Voice}
		if f.Lang == "en" && f.Speaks() && len(o.voices) > 0 {
			voices = o.voices
		}
		for _, v := range voices {
			r := runnerFor(v).Run(ctx, f, v, o.rate)
			results = append(results, r)
			if o.json {
				if err := enc.Encode(r); err != nil {
					return err
				}
			} else if err := flow.WriteResult(stdout, r); err != nil {
				return err
			}
		}
	}
	if !o.json {
		if err := flow.WriteSummary(stdout, results); err != nil {
			return err
		}
	}
	if o.junit != "" {
		var b bytes.Buffer
		if err := flow.WriteJUnit(&b, results); err != nil {
			return err
		}
		if err := os.WriteFile(o.junit, b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("junit report: %w", err)
		}
	}
	for _, r := range results {
		if !r.Pass {
			return exitError{1}
		}
	}
	return nil
}

// waitForSpeech lets the embedded platform's speech engines start before the first spoken
// turn, saying so when that takes a while: on a new machine they first build their language
// models (about 20 s), which is the platform starting, not a turn being slow, so it must not
// count against a turn's --timeout. A remote platform's start is its own (the turn's timeout
// message says how to allow for it). Engines that cannot start are said to have failed, and each
// spoken turn says why; only an interruption stops the run.
func waitForSpeech(ctx context.Context, p *platform, flows []*flow.Flow, stderr io.Writer) error {
	if p.SpeechReady == nil || !slices.ContainsFunc(flows, (*flow.Flow).Speaks) {
		return nil
	}
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- p.SpeechReady(ctx) }()
	var err error
	select {
	case err = <-done:
	case <-time.After(500 * time.Millisecond):
		fmt.Fprintln(stderr, "hark flow run: starting the speech engines (about 20 s on a new machine)")
		if err = <-done; err == nil {
			fmt.Fprintf(stderr, "hark flow run: speech engines ready after %.1f s\n", time.Since(start).Seconds())
		}
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		fmt.Fprintln(stderr, "hark flow run: the speech engines did not start:", err)
	}
	return nil
}

type flowOptions struct {
	voicesFlag string
	voices     []string
	rate       int
	json       bool
	junit      string
	timeout    time.Duration
	pace       string
}

// flowFlags is the flag set of flow run. Its own usage stays silent: -h prints the long
// help to stdout, a wrong flag the flag package's complaint and the short usage to stderr.
func flowFlags(stderr io.Writer) (*flag.FlagSet, *flowOptions) {
	o := &flowOptions{}
	fs := flag.NewFlagSet("flow run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	fs.StringVar(&o.voicesFlag, "voices", "", "run English flows with 'say' turns once per flite voice: "+strings.Join(flow.Voices, ",")+" (default: each flow's voice)")
	fs.IntVar(&o.rate, "rate", 0, "send spoken turns at 16000 or 8000 Hz (default: each flow's rate)")
	fs.BoolVar(&o.json, "json", false, "print one JSON object per flow run, with its turns")
	fs.StringVar(&o.junit, "junit", "", "also write a JUnit XML report to this file")
	fs.DurationVar(&o.timeout, "timeout", flow.DefaultTimeout, "time limit of each turn")
	fs.StringVar(&o.pace, "pace", string(flow.RealTime), "upload pace of spoken turns: real (as spoken) or fast (as fast as the connection takes them)")
	return fs, o
}

func (o *flowOptions) check(files int) error {
	if files == 0 {
		return errors.New("no flow file given")
	}
	if o.voicesFlag != "" {
		for _, v := range strings.Split(o.voicesFlag, ",") {
			v = strings.TrimSpace(v)
			if !slices.Contains(flow.Voices, v) {
				return fmt.Errorf("--voices: unknown voice %q (%s)", v, strings.Join(flow.Voices, ", "))
			}
			if !slices.Contains(o.voices, v) {
				o.voices = append(o.voices, v)
			}
		}
	}
	if o.rate != 0 && !slices.Contains(flow.Rates, o.rate) {
		return fmt.Errorf("--rate %d: the platform takes 16000 or 8000", o.rate)
	}
	if o.timeout <= 0 {
		return fmt.Errorf("--timeout %s: give a positive duration", o.timeout)
	}
	if o.pace != string(flow.RealTime) && o.pace != string(flow.Fast) {
		return fmt.Errorf("--pace %q: real or fast", o.pace)
	}
	if o.junit != "" {
		if st, err := os.Stat(filepath.Dir(o.junit)); err != nil || !st.IsDir() {
			return fmt.Errorf("--junit %s: its directory does not exist", o.junit)
		}
	}
	return nil
}

// cmdFlowRecord is `hark flow record`: the console, recording its turns to a flow file.
// The file is checked (not there, or --force) before the console opens.
func cmdFlowRecord(e *cliEnv, args []string) error {
	fs := flag.NewFlagSet("flow record", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {}
	force := fs.Bool("force", false, "overwrite FILE (and its NAME-turn-N.wav files) when they exist")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(e.stdout, flowRecordUsage)
			fs.SetOutput(e.stdout)
			fs.PrintDefaults()
			return nil
		}
		fmt.Fprintln(e.stderr, flowRecordShortUsage)
		return exitError{2}
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(e.stderr, "hark flow record: give one flow file to write")
		fmt.Fprintln(e.stderr, flowRecordShortUsage)
		return exitError{2}
	}
	rec, err := flow.NewRecorder(fs.Arg(0), *force)
	if err != nil {
		fmt.Fprintln(e.stderr, "hark flow record:", err)
		return exitError{2}
	}
	cfg, err := e.config()
	if err != nil {
		return err
	}
	if err := runConsole(e.ctx, cfg, rec); err != nil {
		return err
	}
	if n := rec.Turns(); n == 0 {
		fmt.Fprintf(e.stdout, "no turn answered: %s not written\n", rec.Path())
	} else {
		fmt.Fprintf(e.stdout, "recorded %d turns to %s; replay with: hark flow run %s\n", n, rec.Path(), rec.Path())
	}
	return nil
}
