package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/harkhq/hark/actions"
	"github.com/harkhq/hark/audio"
	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/ui"
)

// consoleVoice sets up the console's voice and next actions: the schedule, stopwatch and
// device panel are kept in the data directory (alarms survive a restart), music plays through
// the process's audio output, the configured microphone (`hark mic`, --mic or HARK_MIC; the
// default one otherwise) records, and HARK_MIC_ARMED=off closes it between recordings (no
// pre-roll).
// The registry is closed by the returned function.
func consoleVoice(cfg config, c *client.Client, logger *slog.Logger) (*ui.Voice, func(), error) {
	reg, err := actions.New(actions.Config{
		StatePath: filepath.Join(cfg.DataDir, "schedule.json"),
		Player:    ui.NewMusicPlayer(c, audio.NewPlayer),
		Bell:      os.Stdout,
		Logger:    logger,
	})
	if err != nil {
		return nil, func() {}, err
	}
	// The microphone stays armed for the pre-roll unless HARK_MIC_ARMED=off asks for it to
	// be open only while recording.
	v := &ui.Voice{Actions: reg, Mic: audio.CaptureConfig{Device: cfg.Mic},
		KeepMicArmed: os.Getenv("HARK_MIC_ARMED") != "off"}
	return v, reg.Close, nil
}

// micEntry is one row of `hark mic --json`.
type micEntry struct {
	Name    string `json:"name"`
	Default bool   `json:"default"` // the system's default input
	Chosen  bool   `json:"chosen"`  // the one hark records from
}

// cmdMic lists the input devices, or remembers one by name ("default"
// forgets the choice).
func cmdMic(e *cliEnv, args []string) error {
	f := e.flags("mic", "[NAME|default] [--json]", `With no NAME, lists the microphones; * marks the one hark
records from. With NAME, remembers that microphone (hark falls back to the default one when it is
missing); "default" forgets the choice. --json prints an array of {"name", "default", "chosen"}.`)
	asJSON := f.Bool("json", false, "print JSON")
	rest, err := f.parse(args)
	if err != nil {
		return err
	}
	cfg, err := e.config()
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		if *asJSON {
			return f.usageError("--json goes with the list, not with NAME")
		}
		return chooseMic(cfg, strings.Join(rest, " "), e.stderr)
	}
	devices, err := listMics(cfg)
	if err != nil {
		return err
	}
	var list []micEntry
	for _, d := range devices {
		list = append(list, micEntry{Name: d.Name, Default: d.Default, Chosen: d.Name == cfg.Mic || (cfg.Mic == "" && d.Default)})
	}
	return writeList(e.stdout, e.stderr, *asJSON, list, "no microphones found: voice input is off; typed input works",
		func(w io.Writer, m micEntry) {
			mark := "  "
			if m.Chosen {
				mark = "* "
			}
			fmt.Fprintf(w, "%s%s\n", mark, m.Name)
		})
}

// listMics asks the audio system for its input devices, its own chatter
// on fd 2 going to the log rather than between the command's lines.
func listMics(cfg config) ([]audio.Device, error) {
	if err := os.MkdirAll(cfg.StateDir, 0o700); err == nil {
		if restore, err := audio.RedirectStderr(filepath.Join(cfg.StateDir, "hark.log")); err == nil {
			defer restore()
		}
	}
	devices, err := audio.Devices()
	if errors.Is(err, audio.ErrNoAudioBuild) {
		return nil, errors.New("this hark was built without audio (no cgo): it has no microphones")
	}
	return devices, err
}

// chooseMic remembers the microphone name in the config file.
func chooseMic(cfg config, name string, stderr io.Writer) error {
	if name == "default" {
		name = ""
	}
	if err := saveMic(cfg.ConfigDir, name); err != nil {
		return err
	}
	if name == "" {
		fmt.Fprintln(stderr, "hark will record from the default microphone")
	} else {
		fmt.Fprintf(stderr, "hark will record from %q (the default one when it is missing)\n", name)
	}
	return nil
}
