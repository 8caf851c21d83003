package flow

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// WriteText prints results for a terminal (WriteResult for each, then WriteSummary).
func WriteText(w io.Writer, results []*Result) error {
	for _, r := range results {
		if err := WriteResult(w, r); err != nil {
			return err
		}
	}
	return WriteSummary(w, results)
}

// WriteResult prints one flow run: per turn its verdict and why, what was heard, the
// actions and their data, the answer and the waterfall.
func WriteResult(w io.Writer, r *Result) error {
	ew := &errWriter{w: w}
	verdict := "FAIL"
	if r.Pass {
		verdict = "PASS"
	}
	how := []string{}
	if r.Voice != "" {
		how = append(how, "voice "+r.Voice)
	}
	how = append(how, fmt.Sprintf("%d Hz", r.Rate), string(r.Pace)+" pace")
	ew.printf("%s %s (%s; %s) %s\n", verdict, clean(r.Name), r.File, strings.Join(how, ", "), seconds(r.DurationMs))
	for _, t := range r.Turns {
		verdict := "FAIL"
		if t.Pass {
			verdict = "pass"
		}
		ew.printf("  %s turn %d (line %d) %s %s\n", verdict, t.N, t.Line, t.Kind, quoteInput(t))
		if t.Error != "" {
			ew.printf("       error:   %s\n", clean(t.Error))
			continue
		}
		for _, f := range t.Failures {
			ew.printf("       reason:  %s\n", clean(f))
		}
		if t.Kind != Type {
			ew.printf("       heard:   %s\n", orNothing(clean(t.Heard)))
		}
		for _, a := range t.Actions {
			data := compact(a.Data)
			if data == `""` || data == "null" {
				data = ""
			}
			ew.printf("       action:  %s\n", strings.TrimSpace(clean(a.Action)+" "+clean(data)))
		}
		ew.printf("       answer:  %s\n", orNothing(clean(t.Answer)))
		ew.printf("       timing:  %s\n", t.Timing)
	}
	return ew.err
}

// WriteSummary prints how many flow runs and turns passed.
func WriteSummary(w io.Writer, results []*Result) error {
	flowsPassed, turns, turnsPassed := 0, 0, 0
	for _, r := range results {
		if r.Pass {
			flowsPassed++
		}
		for _, t := range r.Turns {
			turns++
			if t.Pass {
				turnsPassed++
			}
		}
	}
	_, err := fmt.Fprintf(w, "%d of %d flow runs passed; %d of %d turns\n", flowsPassed, len(results), turnsPassed, turns)
	return err
}

// String is the waterfall as read after the last word: the upload, then each milestone
// relative to its end.
func (w Waterfall) String() string {
	if w.AnsweredMs > 0 {
		return "answered in " + seconds(w.AnsweredMs)
	}
	if w.UploadEndMs == 0 {
		return "upload not finished"
	}
	parts := []string{fmt.Sprintf("upload %s of %s audio", seconds(w.UploadEndMs), seconds(w.AudioMs))}
	for _, m := range []struct {
		name string
		at   float64
	}{{"recognised", w.RecognisedMs}, {"first answer byte", w.FirstByteMs}, {"answer end", w.AnswerEndMs}} {
		if m.at == 0 {
			break
		}
		part := fmt.Sprintf("%s %+.0f ms", m.name, m.at-w.UploadEndMs)
		if m.name == "recognised" && w.SpeechWaitMs >= 1 {
			part += fmt.Sprintf(" (waited %s for the speech engines to start)", seconds(w.SpeechWaitMs))
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, " → ")
}

func seconds(msec float64) string {
	if msec < 10 {
		return fmt.Sprintf("%.1f ms", msec)
	}
	if msec < 1000 {
		return fmt.Sprintf("%.0f ms", msec)
	}
	return fmt.Sprintf("%.2f s", msec/1000)
}

func quoteInput(t TurnResult) string {
	if t.Kind == WAV {
		return clean(t.Input)
	}
	return `"` + clean(t.Input) + `"`
}

func orNothing(s string) string {
	if s == "" {
		return "(nothing)"
	}
	return s
}

// clean keeps what a remote platform sends from moving the terminal's cursor or colours.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

// JUnit XML, as CI systems read it: one test suite per flow run, one test case per turn.
// A turn that could not run is an error; one whose expectations failed, a failure.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Time     string      `xml:"time,attr"`
	File     string      `xml:"file,attr,omitempty"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes results as a JUnit XML report.
func WriteJUnit(w io.Writer, results []*Result) error {
	all := junitSuites{Name: "hark flow run"}
	var total float64
	for _, r := range results {
		name := r.Name
		if r.Voice != "" {
			name += " [" + r.Voice + "]"
		}
		if r.Rate != 16000 {
			name += fmt.Sprintf(" [%d Hz]", r.Rate)
		}
		s := junitSuite{Name: name, Time: junitTime(r.DurationMs), File: r.File}
		for _, t := range r.Turns {
			c := junitCase{Name: fmt.Sprintf("turn %d: %s %s", t.N, t.Kind, t.Input), Classname: name,
				Time: junitTime(t.Timing.AnswerEndMs + t.Timing.AnsweredMs), File: r.File, Line: t.Line}
			switch {
			case t.Error != "":
				c.Error = &junitProblem{Message: t.Error, Type: "error", Text: t.Error}
				s.Errors++
			case len(t.Failures) > 0:
				text := strings.Join(t.Failures, "\n")
				c.Failure = &junitProblem{Message: t.Failures[0], Type: "expectation", Text: text}
				s.Failures++
			}
			var out strings.Builder
			if t.Kind != Type {
				fmt.Fprintf(&out, "heard: %s\n", t.Heard)
			}
			for _, a := range t.Actions {
				fmt.Fprintf(&out, "action: %s %s\n", a.Action, compact(a.Data))
			}
			fmt.Fprintf(&out, "answer: %s\ntiming: %s\n", t.Answer, t.Timing)
			c.SystemOut = out.String()
			s.Cases = append(s.Cases, c)
			s.Tests++
		}
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Errors += s.Errors
		total += r.DurationMs
		all.Suites = append(all.Suites, s)
	}
	all.Time = junitTime(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func junitTime(msec float64) string { return fmt.Sprintf("%.3f", msec/1000) }
