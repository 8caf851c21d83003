package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/audio"
	"github.com/harkhq/hark/ui"
)

// runConsole opens the full-screen console; rec, when set, records its turns (hark flow
// record). The log goes to a file under
// the XDG state home and fd 2 points there while the screen is up (audio
// libraries write to it directly); a panic restores the terminal first
// and leaves a report file.
func runConsole(ctx context.Context, cfg config, rec ui.TurnRecorder) (err error) {
	if err := os.MkdirAll(cfg.StateDir, 0o700); err != nil {
		return err
	}
	logPath := filepath.Join(cfg.StateDir, "hark.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("log file: %w", err)
	}
	defer logFile.Close()
	logger := slog.New(slog.NewTextHandler(logFile, nil))
	slog.SetDefault(logger)

	logger.Info("console starting", "since_process_start", time.Since(processStart).String())
	p, err := connect(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer p.Close()
	logger.Info("platform connected", "since_process_start", time.Since(processStart).String())

	opts := ui.Options{
		Client:        p.Client,
		Sessions:      p.Sessions,
		Platform:      p.Label,
		NoColor:       ui.NoColorFromEnv(),
		Context:       ctx,
		PlatformReady: p.Ready,
		ReportPanic:   func(r any, stack []byte) string { return writeCrashReport(cfg.StateDir, r, stack, logger) },
		// The city, language and last screen chosen in the app.
		Settings: ui.FileSettings(filepath.Join(cfg.StateDir, "settings.json")),
		Recorder: rec,
	}
	if s, ok, err := p.Sessions.Load(); err == nil && ok {
		opts.Session = &s
	}
	if v, closeVoice, err := consoleVoice(cfg, p.Client, logger); err != nil {
		logger.Warn("voice and next actions are off", "err", err)
	} else {
		opts.Voice = v
		defer closeVoice()
	}
	progOpts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithContext(ctx), tea.WithoutCatchPanics()}
	if os.Getenv("HARK_MOUSE") != "" {
		progOpts = append(progOpts, tea.WithMouseCellMotion())
	}
	prog := tea.NewProgram(ui.New(opts), progOpts...)

	restore, rerr := audio.RedirectStderr(logPath)
	if rerr != nil {
		logger.Warn("fd 2 stays on the terminal", "err", rerr)
		restore = func() {}
	}
	defer func() {
		if r := recover(); r != nil {
			prog.ReleaseTerminal()
			restore()
			where := writeCrashReport(cfg.StateDir, r, debug.Stack(), logger)
			err = fmt.Errorf("hark crashed (%v); report written to %s", r, where)
		}
	}()
	_, runErr := prog.Run()
	restore()
	if runErr != nil && ctx.Err() == nil {
		return runErr
	}
	return nil
}

// writeCrashReport saves a panic and its stack beside the log.
func writeCrashReport(dir string, r any, stack []byte, logger *slog.Logger) string {
	path := filepath.Join(dir, "crash-"+time.Now().UTC().Format("20060102T150405.000")+".txt")
	body := fmt.Sprintf("hark %s crashed at %s\n\npanic: %v\n\n%s", buildVersion(), time.Now().UTC().Format(time.RFC3339), r, stack)
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		logger.Error("panic", "value", fmt.Sprint(r), "stack", string(stack))
		return "the log"
	}
	logger.Error("panic", "value", fmt.Sprint(r), "report", path)
	return path
}
