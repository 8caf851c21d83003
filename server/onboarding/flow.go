package onboarding

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Step types of the interface document.
const (
	ShowMessage    = "SHOW_MESSAGE"
	WaitAck        = "WAIT_ACK"
	WaitInput      = "WAIT_INPUT"
	WaitSelection  = "WAIT_SELECTION"
	WaitPermission = "WAIT_PERMISSION"
	ShowSurvey     = "SHOW_SURVEY"
	End            = "END"
)

// flowFile is the operator-replaceable flow: steps in order, the first one
// starts the flow. Every step but END names its successor in next; a
// WAIT_SELECTION option may name its own, which wins when it is chosen.
type flowFile struct {
	Steps []flowStep `json:"steps"`
}

type flowStep struct {
	ID      string          `json:"id"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
	Next    string          `json:"next"`
}

// Payloads, one per step type, as the interface document names their fields.

type messagePayload struct {
	Message string `json:"message"`
}

type ackPayload struct {
	Message      string `json:"message"`
	Ack          string `json:"ack"`
	ColorAck     string `json:"colorAck"`
	TextColorAck string `json:"textColorAck"`
}

type inputPayload struct {
	Message      string     `json:"message"`
	Parameter    string     `json:"parameter"`
	Preference   string     `json:"preference"`
	DefaultValue string     `json:"defaultValue"`
	Validation   validation `json:"validation"`
}

type validation struct {
	Retries int      `json:"retries"`
	RegExps []string `json:"regExps"`
}

type selectionPayload struct {
	Message   string   `json:"message"`
	Parameter string   `json:"parameter"`
	Options   []option `json:"options"`
}

type option struct {
	Key          string `json:"key"`
	Text         string `json:"text"`
	ColorAck     string `json:"colorAck"`
	TextColorAck string `json:"textColorAck"`
	Next         string `json:"next,omitempty"`
}

type permissionPayload struct {
	Message     string   `json:"message"`
	Permissions []string `json:"permissions"`
}

type surveyPayload struct {
	Message    string       `json:"message,omitempty"`
	SurveyID   int          `json:"surveyId"`
	Items      []SurveyItem `json:"items"`
	MinOptions int          `json:"minOptions"`
	Parameter  string       `json:"parameter"`
}

// SurveyItem is one item of a SHOW_SURVEY payload.
type SurveyItem struct {
	ID       int    `json:"id"`
	Text     string `json:"text"`
	Image    string `json:"image"`
	Selected bool   `json:"selected"`
}

// step is a validated flow step with its payload decoded.
type step struct {
	id, typ, next string
	raw           json.RawMessage // payload as the flow file holds it
	input         *inputPayload
	patterns      []*regexp.Regexp
	selection     *selectionPayload
	permission    *permissionPayload
	survey        *surveyPayload
}

// flow is a loaded, validated flow.
type flow struct {
	start string
	steps map[string]*step
}

// parseFlow reads and checks a flow file: known types, unique ids, every
// reference resolvable, regular expressions compiling, no endless chain of
// messages, and an END reachable from every step.
func parseFlow(data []byte) (*flow, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f flowFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("onboarding flow: %w", err)
	}
	if len(f.Steps) == 0 {
		return nil, fmt.Errorf("onboarding flow: no steps")
	}
	fl := &flow{start: f.Steps[0].ID, steps: map[string]*step{}}
	for i, fs := range f.Steps {
		if strings.TrimSpace(fs.ID) == "" {
			return nil, fmt.Errorf("onboarding flow: step %d has no id", i)
		}
		if fl.steps[fs.ID] != nil {
			return nil, fmt.Errorf("onboarding flow: step id %q is used twice", fs.ID)
		}
		st, err := decodeStep(fs)
		if err != nil {
			return nil, fmt.Errorf("onboarding flow: step %q: %w", fs.ID, err)
		}
		fl.steps[fs.ID] = st
	}
	for _, st := range fl.steps {
		for _, next := range st.successors() {
			if fl.steps[next] == nil {
				return nil, fmt.Errorf("onboarding flow: step %q leads to unknown step %q", st.id, next)
			}
		}
	}
	if err := fl.checkEnds(); err != nil {
		return nil, err
	}
	return fl, nil
}

func decodeStep(fs flowStep) (*step, error) {
	st := &step{id: fs.ID, typ: fs.Type, next: fs.Next, raw: fs.Payload}
	if len(bytes.TrimSpace(st.raw)) == 0 || string(bytes.TrimSpace(st.raw)) == "null" {
		st.raw = json.RawMessage(`{}`)
	}
	compact := new(bytes.Buffer)
	if err := json.Compact(compact, st.raw); err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	st.raw = compact.Bytes()
	strict := func(v any) error {
		dec := json.NewDecoder(bytes.NewReader(st.raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			return fmt.Errorf("payload: %w", err)
		}
		return nil
	}
	switch fs.Type {
	case End:
		if fs.Next != "" {
			return nil, fmt.Errorf("END has no next step")
		}
		return st, strict(&messagePayload{})
	case ShowMessage:
		var p messagePayload
		if err := strict(&p); err != nil {
			return nil, err
		}
		if p.Message == "" {
			return nil, fmt.Errorf("SHOW_MESSAGE needs a message")
		}
	case WaitAck:
		if err := strict(&ackPayload{}); err != nil {
			return nil, err
		}
	case WaitInput:
		st.input = &inputPayload{}
		if err := strict(st.input); err != nil {
			return nil, err
		}
		if st.input.Parameter == "" {
			return nil, fmt.Errorf("WAIT_INPUT needs a parameter")
		}
		if st.input.Validation.Retries < 0 {
			return nil, fmt.Errorf("validation.retries is negative")
		}
		for _, expr := range st.input.Validation.RegExps {
			re, err := regexp.Compile(expr)
			if err != nil {
				return nil, fmt.Errorf("validation regExp %q: %w", expr, err)
			}
			st.patterns = append(st.patterns, re)
		}
	case WaitSelection:
		st.selection = &selectionPayload{}
		if err := strict(st.selection); err != nil {
			return nil, err
		}
		if st.selection.Parameter == "" || len(st.selection.Options) == 0 {
			return nil, fmt.Errorf("WAIT_SELECTION needs a parameter and options")
		}
		keys := map[string]bool{}
		for _, o := range st.selection.Options {
			if o.Key == "" || keys[o.Key] {
				return nil, fmt.Errorf("option key %q is empty or repeated", o.Key)
			}
			keys[o.Key] = true
		}
	case WaitPermission:
		st.permission = &permissionPayload{}
		if err := strict(st.permission); err != nil {
			return nil, err
		}
		if len(st.permission.Permissions) == 0 {
			return nil, fmt.Errorf("WAIT_PERMISSION needs permissions")
		}
	case ShowSurvey:
		st.survey = &surveyPayload{}
		if err := strict(st.survey); err != nil {
			return nil, err
		}
		if st.survey.SurveyID <= 0 || st.survey.MinOptions < 0 || st.survey.Parameter == "" {
			return nil, fmt.Errorf("SHOW_SURVEY needs a positive surveyId, a parameter and minOptions >= 0")
		}
		if len(st.survey.Items) > 0 {
			return nil, fmt.Errorf("SHOW_SURVEY items come from the survey, not from the flow")
		}
	default:
		return nil, fmt.Errorf("unknown type %q", fs.Type)
	}
	if fs.Next == "" {
		return nil, fmt.Errorf("%s needs a next step", fs.Type)
	}
	return st, nil
}

// waits reports whether the step expects an answer.
func (st *step) waits() bool { return st.typ != ShowMessage && st.typ != End }

// successors lists every step this one can lead to.
func (st *step) successors() []string {
	var out []string
	if st.next != "" {
		out = append(out, st.next)
	}
	if st.selection != nil {
		for _, o := range st.selection.Options {
			if o.Next != "" {
				out = append(out, o.Next)
			}
		}
	}
	return out
}

// checkEnds refuses a flow in which some step cannot reach END (a user
// could never complete) or a chain of messages loops (delivery would never
// stop at a waiting step).
func (fl *flow) checkEnds() error {
	reaches := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for id, st := range fl.steps {
			if reaches[id] {
				continue
			}
			if st.typ == End {
				reaches[id] = true
				changed = true
				continue
			}
			for _, next := range st.successors() {
				if reaches[next] {
					reaches[id] = true
					changed = true
					break
				}
			}
		}
	}
	for id := range fl.steps {
		if !reaches[id] {
			return fmt.Errorf("onboarding flow: no END can be reached from step %q", id)
		}
	}
	return nil
}
