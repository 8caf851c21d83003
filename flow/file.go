// Package flow runs spoken conversations written down as YAML files against the platform:
// each turn is said (synthesised with flite, or espeak-ng for Spanish), played from a WAV
// file, or typed; spoken turns stream to /query/audio/stream at real-time pace, the
// conversation's ref is carried from turn to turn, and each turn's expectations (what was
// heard, the next action and its data, the answer) are checked. It is the engine of
// `hark flow run` and talks to the platform only through the client package.
package flow

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/harkhq/hark/client"
)

// Voices are the flite voices a 'say' turn can be spoken with (English flows).
var Voices = []string{"kal16", "slt", "awb", "rms"}

// Rates are the sample rates the platform's recogniser takes.
var Rates = []int{16000, 8000}

// Languages are the flow languages: English turns are said by flite, Spanish ones by espeak-ng.
var Languages = []string{"en", "es"}

// maxFlowFile bounds what Load reads: a flow is a few lines of text.
const maxFlowFile = 1 << 20

// Flow is one conversation read from a file.
type Flow struct {
	Name  string
	Path  string // the file; a turn's WAV path is relative to its directory
	Lang  string // "en" or "es"
	Voice string // flite voice of 'say' turns (English)
	Rate  int    // sample rate of spoken turns
	Turns []Turn
}

// Kind is what a turn sends.
type Kind string

const (
	Say  Kind = "say"  // synthesised speech
	WAV  Kind = "wav"  // a recorded file
	Type Kind = "type" // typed text
)

// Turn is one query of the conversation and what its answer must show.
type Turn struct {
	Kind   Kind
	Text   string // what is said or typed, or the WAV path as written
	Line   int    // where the turn starts in the file
	Expect Expect
}

// Expect holds a turn's expectations; a zero field is not checked.
type Expect struct {
	Heard  *regexp.Regexp // on the recognised (or echoed) query, without case
	Action string         // a next action code the answer must carry
	Answer *regexp.Regexp // on the answer's text
	Data   []DataExpect   // on that action's data, by key
}

// DataExpect is a regular expression on one field of an action's data: a string as it is,
// any other value in its JSON form.
type DataExpect struct {
	Key     string
	Pattern *regexp.Regexp
}

// Speaks tells whether the flow has turns to synthesise, whose voice matters.
func (f *Flow) Speaks() bool {
	for _, t := range f.Turns {
		if t.Kind == Say {
			return true
		}
	}
	return false
}

// Load reads and checks a flow file. Every error names the file and the line.
func Load(path string) (*Flow, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, maxFlowFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > maxFlowFile {
		return nil, fmt.Errorf("%s: larger than %d bytes: not a flow file", path, maxFlowFile)
	}
	f, err := Parse(b)
	var fe *FileError
	if errors.As(err, &fe) {
		fe.Path = path
	}
	if err != nil {
		return nil, err
	}
	f.Path = path
	if f.Name == "" {
		f.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return f, nil
}

// LineError is a problem at one line of a flow file.
type LineError struct {
	Line int
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

func lineErrorf(line int, format string, args ...any) *LineError {
	return &LineError{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// FileError lists every problem found in a flow file, in line order.
type FileError struct {
	Path     string // "" when parsed from bytes
	Problems []*LineError
}

func (e *FileError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		if e.Path != "" {
			fmt.Fprintf(&b, "%s:%d: %s", e.Path, p.Line, p.Msg)
		} else {
			b.WriteString(p.Error())
		}
	}
	return b.String()
}

func fileError(problems []*LineError) error {
	if len(problems) == 0 {
		return nil
	}
	sort.SliceStable(problems, func(i, j int) bool { return problems[i].Line < problems[j].Line })
	return &FileError{Problems: problems}
}

// typeError reports a problem from inside the decoder without stopping it, so that one
// pass finds every bad value and unknown key.
func typeError(line int, format string, args ...any) error {
	return &yaml.TypeError{Errors: []string{lineErrorf(line, format, args...).Error()}}
}

// The file as YAML sees it. Scalars that need checking decode through types that know
// their line; the structs themselves have no custom decoding, so the decoder's KnownFields
// check reaches every level.
type fileYAML struct {
	Name  string     `yaml:"name"`
	Lang  choice     `yaml:"lang"`
	Voice choice     `yaml:"voice"`
	Rate  choice     `yaml:"rate"`
	Turns []turnYAML `yaml:"turns"`
}

type turnYAML struct {
	Say    *string     `yaml:"say"`
	WAV    *string     `yaml:"wav"`
	Type   *string     `yaml:"type"`
	Expect *expectYAML `yaml:"expect"`
}

type expectYAML struct {
	Heard  pattern            `yaml:"heard"`
	Action choice             `yaml:"action"`
	Answer pattern            `yaml:"answer"`
	Data   map[string]pattern `yaml:"data"`
}

// choice is a scalar checked after decoding against a list of values.
type choice struct {
	value string
	line  int
}

func (c *choice) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return typeError(n.Line, "expected a single value, not a %s", kindName(n.Kind))
	}
	c.value, c.line = n.Value, n.Line
	return nil
}

func (c choice) oneOf(what string, allowed []string, def string) (string, *LineError) {
	if c.line == 0 {
		return def, nil
	}
	if !slices.Contains(allowed, c.value) {
		return "", lineErrorf(c.line, "unknown %s %q (one of %s)", what, c.value, strings.Join(allowed, ", "))
	}
	return c.value, nil
}

// pattern is a regular expression, compiled as soon as it is read so that a bad one names
// its line.
type pattern struct {
	src  string
	line int
}

func (p *pattern) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return typeError(n.Line, "expected a regular expression, not a %s", kindName(n.Kind))
	}
	if _, err := regexp.Compile(n.Value); err != nil {
		return typeError(n.Line, "bad regular expression %q: %v", n.Value, err)
	}
	p.src, p.line = n.Value, n.Line
	return nil
}

func (p pattern) compile(prefix string) *regexp.Regexp {
	if p.line == 0 {
		return nil
	}
	return regexp.MustCompile(prefix + p.src)
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.AliasNode:
		return "alias"
	}
	return "value"
}

// yamlTypes names the decoding structs in the decoder's messages.
var yamlTypes = map[string]string{
	"flow.fileYAML":   "a flow (name, lang, voice, rate, turns)",
	"flow.turnYAML":   "a turn (say, wav, type, expect)",
	"flow.expectYAML": "expect (heard, action, answer, data)",
}

// goTypes words the decoder's "cannot unmarshal" messages in the file's terms.
var goTypes = strings.NewReplacer("!!", "", "[]flow.turnYAML", "a list of turns", "*flow.expectYAML", "expect",
	"flow.expectYAML", "expect", "flow.turnYAML", "a turn", "flow.fileYAML", "a flow",
	"map[string]flow.pattern", "a mapping of data keys to regular expressions")

// parserProblems are the messages of yaml.v3's parser (as opposed to its scanner), whose
// line it reports counted from zero: the line where the unfinished construct begins.
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'": true, "did not find expected ',' or '}'": true,
	"did not find expected '-' indicator": true, "did not find expected <document start>": true,
	"did not find expected key": true, "did not find expected node content": true,
	"found duplicate %TAG directive": true, "found duplicate %YAML directive": true,
	"found incompatible YAML document": true, "found undefined tag handle": true,
}

var unknownField = regexp.MustCompile(`^field (.+) not found in type (\S+)$`)
var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// Parse reads a flow from YAML. Its error is a *FileError listing every problem found.
func Parse(b []byte) (*Flow, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, fileError(yamlProblems(err))
	}
	if len(root.Content) == 0 {
		return nil, fileError([]*LineError{lineErrorf(1, "the file holds no flow (name, lang, voice, rate, turns)")})
	}
	if top := root.Content[0]; top.Kind != yaml.MappingNode {
		return nil, fileError([]*LineError{lineErrorf(top.Line, "a flow is a mapping (name, lang, voice, rate, turns), not a %s", kindName(top.Kind))})
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var y fileYAML
	var problems []*LineError
	if err := dec.Decode(&y); err != nil {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return nil, fileError(yamlProblems(err))
		}
		// The decoder filled what it could: check that too, to report everything at once.
		problems = yamlProblems(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		problems = append(problems, lineErrorf(extra.Line, "a second document: one flow per file"))
	}
	f, more := y.flow(turnLines(root.Content[0]))
	if err := fileError(append(problems, more...)); err != nil {
		return nil, err
	}
	return f, nil
}

// yamlProblems rewrites the parser's and decoder's messages to name lines and keys the way
// flow files do.
func yamlProblems(err error) []*LineError {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		n, msg := 0, strings.TrimPrefix(err.Error(), "yaml: ")
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			n, _ = strconv.Atoi(m[1])
			msg = m[2]
		}
		if parserProblems[msg] {
			n++ // yaml.v3 gives these the zero-based line, and none on the first line
		}
		return []*LineError{lineErrorf(max(n, 1), "%s", msg)}
	}
	var out []*LineError
	for _, e := range te.Errors {
		m := yamlLine.FindStringSubmatch(e)
		if m == nil {
			out = append(out, lineErrorf(1, "%s", e))
			continue
		}
		n, _ := strconv.Atoi(m[1])
		msg := m[2]
		if f := unknownField.FindStringSubmatch(msg); f != nil {
			where := yamlTypes[f[2]]
			if where == "" {
				where = f[2]
			}
			msg = fmt.Sprintf("unknown key %q in %s", f[1], where)
		} else {
			msg = goTypes.Replace(msg)
		}
		out = append(out, lineErrorf(n, "%s", msg))
	}
	return out
}

// turnLines finds the line of each turn in the document's mapping. notAList tells that
// turns is there but neither a list nor empty ("turns:"), which the decoder reports
// already.
func turnLines(m *yaml.Node) (lines []int, notAList bool) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "turns" {
			v := m.Content[i+1]
			for _, t := range v.Content {
				lines = append(lines, t.Line)
			}
			return lines, v.Kind != yaml.SequenceNode && v.Tag != "!!null"
		}
	}
	return nil, false
}

func (y *fileYAML) flow(lines []int, notAList bool) (*Flow, []*LineError) {
	f := &Flow{Name: strings.TrimSpace(y.Name)}
	var errs []*LineError
	var err *LineError
	if f.Lang, err = y.Lang.oneOf("language", Languages, "en"); err != nil {
		errs = append(errs, err)
	}
	if f.Voice, err = y.Voice.oneOf("voice", Voices, Voices[0]); err != nil {
		errs = append(errs, err)
	}
	if f.Lang == "es" && y.Voice.line != 0 {
		errs = append(errs, lineErrorf(y.Voice.line, "voice is for English flows (flite voices); Spanish 'say' turns are spoken by espeak-ng"))
	}
	rates := make([]string, len(Rates))
	for i, r := range Rates {
		rates[i] = strconv.Itoa(r)
	}
	rate, err := y.Rate.oneOf("rate", rates, rates[0])
	if err != nil {
		errs = append(errs, err)
	}
	f.Rate, _ = strconv.Atoi(rate)
	if len(y.Turns) == 0 && !notAList {
		errs = append(errs, lineErrorf(1, "a flow needs turns (a list of say, wav or type)"))
	}
	for i, ty := range y.Turns {
		line := 1
		if i < len(lines) {
			line = lines[i]
		}
		t, terrs := ty.turn(line)
		errs = append(errs, terrs...)
		f.Turns = append(f.Turns, t)
	}
	return f, errs
}

func (y *turnYAML) turn(line int) (Turn, []*LineError) {
	t := Turn{Line: line}
	var errs []*LineError
	given := 0
	for _, k := range []struct {
		kind Kind
		v    *string
	}{{Say, y.Say}, {WAV, y.WAV}, {Type, y.Type}} {
		if k.v != nil {
			given++
			t.Kind, t.Text = k.kind, strings.TrimSpace(*k.v)
		}
	}
	switch {
	case given == 0:
		errs = append(errs, lineErrorf(line, "a turn needs one of say, wav or type"))
	case given > 1:
		errs = append(errs, lineErrorf(line, "a turn takes one of say, wav or type, not %d of them", given))
	case t.Text == "":
		errs = append(errs, lineErrorf(line, "%s is empty", t.Kind))
	}
	if y.Expect == nil {
		return t, errs
	}
	e := y.Expect
	action, err := e.Action.oneOf("action code", client.ActionCodes(), "")
	if err != nil {
		errs = append(errs, err)
	}
	t.Expect = Expect{Heard: e.Heard.compile("(?i)"), Action: action, Answer: e.Answer.compile("")}
	if len(e.Data) > 0 && e.Action.line == 0 {
		errs = append(errs, lineErrorf(line, "expect.data checks the data of expect.action: name the action"))
	}
	for k, p := range e.Data {
		t.Expect.Data = append(t.Expect.Data, DataExpect{Key: k, Pattern: p.compile("")})
	}
	sort.Slice(t.Expect.Data, func(i, j int) bool { return t.Expect.Data[i].Key < t.Expect.Data[j].Key })
	return t, errs
}
