package main

import (
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

// cmdMic lists the input devices, or remembers one by name ("default"
// forgets the choice).
func cmdMic(cfg config, args []string, stdout io.Writer) error {
	if len(args) > 0 {
		name := strings.Join(args, " ")
		if name == "default" {
			name = ""
		}
		if err := saveMic(cfg.ConfigDir, name); err != nil {
			return err
		}
		if name == "" {
			fmt.Fprintln(stdout, "hark will record from the default microphone")
		} else {
			fmt.Fprintf(stdout, "hark will record from %q (the default one when it is missing)\n", name)
		}
		return nil
	}
	devices, err := audio.Devices()
	if err != nil {
		return err
	}
	for _, d := range devices {
		mark := "  "
		if d.Name == cfg.Mic || (cfg.Mic == "" && d.Default) {
			mark = "* "
		}
		fmt.Fprintf(stdout, "%s%s\n", mark, d.Name)
	}
	return nil
}
