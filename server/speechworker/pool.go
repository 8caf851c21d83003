package speechworker

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/harkhq/hark/server/apierr"
)

// Backoff of restarts: the first replacement of a dead worker starts
// after minBackoff, each further failure in a row doubles the wait up to
// maxBackoff; a request served to its end resets it.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 5 * time.Second
	// startTimeout bounds a worker's start, model loading included. On a
	// new machine the first recognition worker also builds the language
	// models (the mixed one holds the general model's 3.7 million n-grams:
	// about 25 s of CPU; under the race detector, on a busy machine,
	// minutes: the mixing alone took 391 s of wall time in a -race test at
	// load 12); a worker killed for taking longer would leave its
	// successor to start the build over.
	startTimeout = 10 * time.Minute
	// replyTimeout bounds the wait for a reply the worker owes (a speak
	// request's result after a cancel, an abort's acknowledgement, a
	// finished utterance's result); a worker that misses it is killed as
	// hung.
	replyTimeout = time.Minute
)

// Options configures a pool.
type Options struct {
	// Size is how many workers run at most; runtime.NumCPU() when zero.
	Size int
	// Command makes the command line of a worker of role;
	// SelfCommand when nil.
	Command func(role string) (*exec.Cmd, error)
	Logger  *slog.Logger
}

// SelfCommand runs this process's own executable with the hidden
// subcommand (harkd and hark answer it; test binaries answer through
// RunIfWorker, which reads the environment).
func SelfCommand(role string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, Subcommand, role)
	cmd.Env = append(os.Environ(), envRole+"="+role)
	return cmd, nil
}

// Pool runs and supervises the workers of one role.
type Pool struct {
	role string
	what string // "speech synthesis", for messages
	init []byte
	opt  Options
	log  *slog.Logger

	mu        sync.Mutex
	changed   chan struct{} // closed and replaced when idle, live or broken change
	idle      []*worker
	busy      map[*worker]bool
	live      int // running, starting or waiting to restart
	inUse     int // acquired and not yet released
	broken    error
	failures  int   // deaths and failed starts in a row
	startErr  error // why the last start failed, until one succeeds
	restarts  int
	closed    bool
	ready     chan struct{}
	readyInfo readyInfo
}

func newPool(role, what string, init any, opt Options) *Pool {
	if opt.Size <= 0 {
		opt.Size = runtime.NumCPU()
	}
	if opt.Command == nil {
		opt.Command = SelfCommand
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	b, _ := json.Marshal(init)
	p := &Pool{role: role, what: what, init: b, opt: opt, log: opt.Logger, changed: make(chan struct{}),
		busy: map[*worker]bool{}, ready: make(chan struct{}), live: 1}
	// The first worker starts at once, so that a missing library or model
	// is found (and logged) when the server starts, not on a first request.
	go func() {
		defer close(p.ready)
		if os.Getenv(envRole) != "" {
			p.fail(fmt.Errorf("a speech worker cannot start speech workers (%s is set)", envRole))
			return
		}
		w, info, err := p.start()
		p.mu.Lock()
		defer p.mu.Unlock()
		if err != nil {
			p.live--
			p.broken = unavailable(p.what, err)
			p.notify()
			return
		}
		p.readyInfo = info
		p.put(w)
	}()
	return p
}

func (p *Pool) fail(err error) {
	p.mu.Lock()
	p.live--
	p.broken = unavailable(p.what, err)
	p.notify()
	p.mu.Unlock()
}

func unavailable(what string, err error) error {
	if e, ok := apierr.As(err); ok && e.Code == apierr.Unavailable {
		return e
	}
	return apierr.Unavailablef("%s is not available on this server: %v", what, err)
}

// Ready waits for the first worker and returns why it could not start.
func (p *Pool) Ready(ctx context.Context) error {
	select {
	case <-p.ready:
	case <-ctx.Done():
		return ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.broken
}

// Stats is a snapshot of a pool.
type Stats struct {
	Size     int   // the most workers it runs
	Live     int   // workers running, starting or about to restart
	Idle     int   // workers waiting for a request
	InUse    int   // requests holding a worker
	Restarts int   // workers replaced after dying
	Busy     []int // process ids of the workers serving a request
}

// Stats reports the pool's state.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := Stats{Size: p.opt.Size, Live: p.live, Idle: len(p.idle), InUse: p.inUse, Restarts: p.restarts}
	for w := range p.busy {
		s.Busy = append(s.Busy, w.pid)
	}
	return s
}

// Close stops every worker; requests in flight fail.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	all := append([]*worker(nil), p.idle...)
	for w := range p.busy {
		all = append(all, w)
	}
	p.idle = nil
	p.notify()
	p.mu.Unlock()
	for _, w := range all {
		w.stop()
	}
}

// notify wakes the waiters; p.mu is held.
func (p *Pool) notify() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// put makes w available; p.mu is held.
func (p *Pool) put(w *worker) {
	if p.closed {
		go w.stop()
		p.live--
		return
	}
	p.idle = append(p.idle, w)
	p.notify()
}

var errClosed = apierr.Unavailablef("the server is shutting down")

// acquire takes an idle worker, starts one when fewer than Size run, or
// waits for one.
func (p *Pool) acquire(ctx context.Context) (*worker, error) {
	for {
		p.mu.Lock()
		switch {
		case p.closed:
			p.mu.Unlock()
			return nil, errClosed
		case p.broken != nil:
			err := p.broken
			p.mu.Unlock()
			return nil, err
		case len(p.idle) == 0 && p.startErr != nil:
			// Workers cannot start (the binary was replaced, memory is
			// short): answer now rather than wait for the next try.
			err := unavailable(p.what, p.startErr)
			p.mu.Unlock()
			return nil, err
		case len(p.idle) > 0:
			w := p.idle[len(p.idle)-1]
			p.idle = p.idle[:len(p.idle)-1]
			p.busy[w] = true
			p.inUse++
			p.mu.Unlock()
			return w, nil
		case p.live < p.opt.Size && p.failures == 0:
			p.live++
			p.mu.Unlock()
			w, _, err := p.start()
			p.mu.Lock()
			if err != nil {
				// The slot stays counted: restart fills it after the backoff.
				p.failures++
				p.startErr = err
				wait := backoff(p.failures)
				p.notify()
				p.mu.Unlock()
				p.log.Error("speech worker did not start; trying again", "role", p.role, "err", err, "retry_in", wait)
				go p.restart(wait)
				return nil, unavailable(p.what, err)
			}
			if p.closed {
				p.live--
				p.mu.Unlock()
				w.stop()
				return nil, errClosed
			}
			p.startErr = nil
			p.busy[w] = true
			p.inUse++
			p.mu.Unlock()
			return w, nil
		}
		ch := p.changed
		p.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// release gives back a worker that answered its request.
func (p *Pool) release(w *worker) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.busy, w)
	p.inUse--
	p.failures = 0
	p.put(w)
}

// died takes a worker that died (or was killed as hung) out of the pool,
// logs why with what it was given, and restarts one in its place after
// the backoff.
func (p *Pool) died(w *worker, cause string, what ...any) {
	w.stop()
	p.mu.Lock()
	delete(p.busy, w)
	p.inUse--
	p.failures++
	wait := backoff(p.failures)
	closed := p.closed
	p.notify()
	p.mu.Unlock()
	if closed { // Close killed it
		p.mu.Lock()
		p.live--
		p.mu.Unlock()
		return
	}
	attrs := append([]any{"role", p.role, "pid", w.pid, "cause", cause, "exit", w.exitStatus(),
		"stderr", w.stderr.firstLines(3), "restart_in", wait}, what...)
	p.log.Error("speech worker died; restarting it", attrs...)
	go p.restart(wait)
}

func backoff(failures int) time.Duration {
	d := minBackoff
	for i := 1; i < failures && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}

// restart starts a replacement worker after wait, and again with a longer
// wait until one starts or the pool closes.
func (p *Pool) restart(wait time.Duration) {
	for {
		time.Sleep(wait)
		p.mu.Lock()
		if p.closed {
			p.live--
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		w, _, err := p.start()
		p.mu.Lock()
		if err == nil {
			p.restarts++
			p.startErr = nil
			p.put(w)
			p.mu.Unlock()
			return
		}
		p.failures++
		p.startErr = err
		wait = backoff(p.failures)
		p.notify()
		p.mu.Unlock()
		p.log.Error("speech worker did not start; trying again", "role", p.role, "err", err, "retry_in", wait)
	}
}

// start runs a worker and waits for its ready frame.
func (p *Pool) start() (*worker, readyInfo, error) {
	cmd, err := p.opt.Command(p.role)
	if err != nil {
		return nil, readyInfo{}, err
	}
	w := &worker{cmd: cmd, exited: make(chan struct{}), frames: make(chan frame, 4), readDone: make(chan struct{})}
	cmd.Stderr = &w.stderr
	// An *os.File pipe of our own, not StdinPipe's wrapper, so that writes
	// have deadlines: a worker that stops reading cannot block a request.
	in, inW, err := os.Pipe()
	if err != nil {
		return nil, readyInfo{}, err
	}
	cmd.Stdin, w.in = in, inW
	out, err := cmd.StdoutPipe()
	if err != nil {
		in.Close()
		inW.Close()
		return nil, readyInfo{}, err
	}
	err = cmd.Start()
	in.Close()
	if err != nil {
		inW.Close()
		return nil, readyInfo{}, fmt.Errorf("start a %s worker: %w", p.role, err)
	}
	w.pid = cmd.Process.Pid
	go w.read(bufio.NewReaderSize(out, 64<<10))
	go func() {
		// Wait closes the stdout pipe: it runs once the reader is done.
		<-w.readDone
		w.waitErr = cmd.Wait()
		close(w.exited)
	}()
	if err := w.send(frameInit, p.init); err != nil {
		w.stop()
		return nil, readyInfo{}, fmt.Errorf("start a %s worker: %w", p.role, err)
	}
	f, err := w.await(context.Background(), startTimeout)
	if err != nil {
		w.stop()
		if s := w.stderr.firstLines(3); s != "" {
			err = fmt.Errorf("%w (%s)", err, s)
		}
		return nil, readyInfo{}, fmt.Errorf("start a %s worker: %w", p.role, err)
	}
	switch f.typ {
	case frameReady:
		var info readyInfo
		if err := json.Unmarshal(f.payload, &info); err != nil || info.Protocol != protocolVersion {
			w.stop()
			return nil, readyInfo{}, fmt.Errorf("start a %s worker: it speaks protocol %d, %d expected (%v)", p.role, info.Protocol, protocolVersion, err)
		}
		return w, info, nil
	case frameError:
		w.stop()
		return nil, readyInfo{}, fromWire(f.payload)
	}
	w.stop()
	return nil, readyInfo{}, fmt.Errorf("start a %s worker: %w: %q instead of ready", p.role, errFrame, f.typ)
}

// worker is one worker process.
type worker struct {
	cmd      *exec.Cmd
	pid      int
	in       *os.File
	frames   chan frame // closed when stdout ends
	readErr  error      // why, once frames is closed
	readDone chan struct{}
	stderr   headBuffer
	exited   chan struct{}
	waitErr  error
}

func (w *worker) read(r *bufio.Reader) {
	defer close(w.readDone)
	defer close(w.frames)
	for {
		f, err := readFrame(r)
		if err != nil {
			w.readErr = err
			return
		}
		w.frames <- f
	}
}

// send writes a frame; a worker that does not take it within
// replyTimeout is as good as dead.
func (w *worker) send(typ byte, payload []byte) error {
	w.in.SetWriteDeadline(time.Now().Add(replyTimeout))
	return writeFrame(w.in, typ, payload)
}

func (w *worker) sendJSON(typ byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return w.send(typ, b)
}

// errDied says the worker's output ended: it died, or it was killed.
var errDied = errors.New("speech worker died")

// await returns the next frame; errDied when the worker's output ends,
// ctx.Err() when ctx ends first, an error when timeout passes first.
func (w *worker) await(ctx context.Context, timeout time.Duration) (frame, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case f, ok := <-w.frames:
		if !ok {
			return frame{}, errDied
		}
		return f, nil
	case <-ctx.Done():
		return frame{}, ctx.Err()
	case <-t.C:
		return frame{}, fmt.Errorf("no answer from the speech worker in %s", timeout)
	}
}

// stop kills the worker and waits for it to end; it may be called more
// than once.
func (w *worker) stop() {
	w.in.Close()
	w.cmd.Process.Kill()
	<-w.exited
}

// exitStatus describes how the process ended ("signal: segmentation
// fault", "exit status 2"); stop was called.
func (w *worker) exitStatus() string {
	<-w.exited
	if w.waitErr == nil {
		return "exit status 0"
	}
	return w.waitErr.Error()
}

// headBuffer keeps the first 4 KiB a worker writes to stderr: a native
// crash's report (Go's "SIGSEGV: segmentation violation ... signal
// arrived during cgo execution") comes first; workers write nothing else.
type headBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (h *headBuffer) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := 4096 - len(h.buf); room > 0 {
		h.buf = append(h.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (h *headBuffer) firstLines(n int) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	lines := strings.SplitN(strings.TrimSpace(string(h.buf)), "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], " | ")
}
