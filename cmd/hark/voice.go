package main

import (
	"log/slog"
	"os"
	"path/filepath"

	"github.com/harkhq/hark/actions"
	"github.com/harkhq/hark/audio"
	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/ui"
)

// consoleVoice sets up the console's voice and next actions: the schedule, stopwatch and
// device panel are kept in the data directory (alarms survive a restart), music plays through
// the process's audio output, HARK_MIC names the microphone (the default one otherwise) and
// HARK_MIC_ARMED=off closes it between recordings (no pre-roll).
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
	v := &ui.Voice{Actions: reg, Mic: audio.CaptureConfig{Device: os.Getenv("HARK_MIC")},
		KeepMicArmed: os.Getenv("HARK_MIC_ARMED") != "off"}
	return v, reg.Close, nil
}
