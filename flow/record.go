package flow

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/harkhq/hark/audio"
	"github.com/harkhq/hark/client"
)

// Recorder writes a session, turn by turn, as a flow file that `hark flow run` replays: a
// typed turn as 'type', a spoken one as 'wav' (its audio saved beside the file as
// NAME-turn-N.wav), and what happened as expectations. The file is rewritten whole and
// atomically (temp file + rename) after every turn, so a crash loses at most the turn in
// flight and never leaves half a file.
type Recorder struct {
	mu    sync.Mutex
	path  string
	force bool
	file  recFile
	wavs  int
}

// The YAML written: the keys the strict parser (fileYAML) knows, nothing else.
type recFile struct {
	Name  string    `yaml:"name"`
	Lang  string    `yaml:"lang"`
	Rate  int       `yaml:"rate"`
	Turns []recTurn `yaml:"turns"`
}

type recTurn struct {
	WAV    string     `yaml:"wav,omitempty"`
	Type   string     `yaml:"type,omitempty"`
	Expect *recExpect `yaml:"expect,omitempty"`
}

type recExpect struct {
	Heard  string `yaml:"heard,omitempty"`
	Action string `yaml:"action,omitempty"`
	Answer string `yaml:"answer,omitempty"`
}

// NewRecorder records to path. It refuses a path that exists unless force; nothing is
// written before the first turn.
func NewRecorder(path string, force bool) (*Recorder, error) {
	if path == "" {
		return nil, errors.New("no flow file named")
	}
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return nil, fmt.Errorf("%s is a directory", path)
		}
		if !force {
			return nil, fmt.Errorf("%s exists; --force overwrites it", path)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("no directory %s to write %s in", filepath.Dir(path), filepath.Base(path))
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	// Spoken turns are replayed at the capture rate, which is one of Rates.
	return &Recorder{path: path, force: force, file: recFile{Name: name, Lang: "en", Rate: audio.CaptureRate}}, nil
}

// Path is the flow file being written.
func (r *Recorder) Path() string { return r.path }

// Turns is how many turns are written.
func (r *Recorder) Turns() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.file.Turns)
}

// RecordTurn adds one answered turn and rewrites the file: typed text, or spoken PCM
// (16-bit mono) at rate, with the answer resp. On error the turn is not kept.
func (r *Recorder) RecordTurn(typed string, pcm []byte, rate int, resp *client.DialogueResponse) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := recTurn{Type: strings.TrimSpace(typed), Expect: expectationsOf(resp)}
	if len(pcm) > 0 {
		name := fmt.Sprintf("%s-turn-%d.wav", r.file.Name, r.wavs+1)
		wav := filepath.Join(filepath.Dir(r.path), name)
		if _, err := os.Stat(wav); err == nil && !r.force {
			return fmt.Errorf("%s exists; --force overwrites it", wav)
		}
		if err := writeAtomic(wav, audio.EncodeWAV(pcm, rate)); err != nil {
			return err
		}
		r.wavs++
		t.Type, t.WAV = "", name
	} else if t.Type == "" {
		return errors.New("a turn with neither text nor audio")
	}
	// The first answer's language is the flow's (it decides how 'say' turns added by
	// hand are spoken); one the flows do not know stays the default.
	if len(r.file.Turns) == 0 && resp != nil && slices.Contains(Languages, resp.Lang) {
		r.file.Lang = resp.Lang
	}
	file := r.file
	file.Turns = append(slices.Clone(r.file.Turns), t)
	b, err := yaml.Marshal(file)
	if err != nil {
		return err
	}
	b = append([]byte("# Recorded by hark flow record; replay with hark flow run.\n"), b...)
	// What is written must replay: check it with the same strict parser first.
	if _, err := Parse(b); err != nil {
		return fmt.Errorf("the recorded turn does not make a valid flow: %w", err)
	}
	if err := writeAtomic(r.path, b); err != nil {
		return err
	}
	r.file = file
	return nil
}

// expectationsOf is what a replay must see again: the query as heard (anchored, any case),
// the first next action's code, and the stable part of the answer.
func expectationsOf(resp *client.DialogueResponse) *recExpect {
	if resp == nil {
		return nil
	}
	e := &recExpect{Answer: AnswerPattern(resp.Responses.Text)}
	if q := strings.TrimSpace(resp.Responses.Query); q != "" {
		e.Heard = "^" + regexp.QuoteMeta(q) + "$"
	}
	for _, a := range resp.NextActions {
		if slices.Contains(client.ActionCodes(), a.Action) {
			e.Action = a.Action
			break
		}
	}
	if *e == (recExpect{}) {
		return nil
	}
	return e
}

// unstable are the words of an answer that change from run to run with the clock: day
// and month names and the parts of a clock time. The answer's pattern stops before them.
var unstable = regexp.MustCompile(`(?i)\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|` +
	`lunes|martes|miércoles|jueves|viernes|sábado|domingo|january|february|march|april|may|june|july|` +
	`august|september|october|november|december|enero|febrero|marzo|abril|mayo|junio|julio|agosto|` +
	`septiembre|octubre|noviembre|diciembre|today|tomorrow|yesterday|hoy|mañana|ayer|a\.?m\.?|p\.?m\.?|` +
	`\d{1,2}:\d{2})`)

var digits = regexp.MustCompile(`-?\d+`)

// minAnswerPrefix is the shortest answer prefix worth checking: shorter ones ("It's")
// would match almost any answer.
const minAnswerPrefix = 8

// maxAnswerPrefix bounds the checked part of a long answer (a list, a message read back).
const maxAnswerPrefix = 100

// AnswerPattern is a regexp for the stable part of answer, anchored at its start: the text
// up to the first clock-dependent word (a time, a day, a month) or to the end of the
// first number's word, cut at a word boundary when long, numbers generalised to -?\d+.
// "" when too little is stable to check.
func AnswerPattern(answer string) string {
	s := strings.Join(strings.Fields(answer), " ")
	if loc := unstable.FindStringIndex(s); loc != nil {
		s = s[:loc[0]]
	}
	// What follows a number is data that changes with the day too (the weather's
	// condition after its temperature): stop at the end of the number's word.
	if loc := digits.FindStringIndex(s); loc != nil {
		if sp := strings.IndexByte(s[loc[1]:], ' '); sp >= 0 {
			s = s[:loc[1]+sp]
		}
	}
	if len(s) > maxAnswerPrefix {
		cut := strings.LastIndex(s[:maxAnswerPrefix], " ")
		if cut <= 0 {
			cut = maxAnswerPrefix
		}
		s = s[:cut]
	}
	s = strings.TrimRight(s, " ")
	if len(strings.TrimSpace(digits.ReplaceAllString(s, ""))) < minAnswerPrefix {
		return ""
	}
	var b strings.Builder
	b.WriteString("^")
	last := 0
	for _, m := range digits.FindAllStringIndex(s, -1) {
		b.WriteString(regexp.QuoteMeta(s[last:m[0]]))
		b.WriteString(`-?\d+`)
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(s[last:]))
	return b.String()
}

// writeAtomic replaces path with b: written to a temp file in the same directory, synced,
// then renamed over it, so a reader sees the old file or the new one, never a part.
func writeAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
