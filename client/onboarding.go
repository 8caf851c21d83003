package client

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
)

// OnboardingService covers /onboarding/*.
type OnboardingService struct{ c *Client }

// Step is one onboarding step. Next is empty when the step waits for an
// answer.
type Step struct {
	ID      string      `json:"id"`
	Type    string      `json:"type"`
	Payload StepPayload `json:"payload"`
	Next    string      `json:"next"`
}

// UnmarshalJSON accepts ids and next as strings or numbers (the samples
// use integers).
func (s *Step) UnmarshalJSON(b []byte) error {
	var v struct {
		ID      json.RawMessage `json:"id"`
		Type    string          `json:"type"`
		Payload StepPayload     `json:"payload"`
		Next    json.RawMessage `json:"next"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	s.ID, s.Type, s.Payload, s.Next = flexString(v.ID), v.Type, v.Payload, flexString(v.Next)
	return nil
}

func flexString(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// StepPayload is the union of the payload fields of every step type.
type StepPayload struct {
	Message      string           `json:"message"`
	Ack          string           `json:"ack"`
	ColorAck     string           `json:"colorAck"`
	TextColorAck string           `json:"textColorAck"`
	Parameter    string           `json:"parameter"`
	Preference   string           `json:"preference"`
	DefaultValue string           `json:"defaultValue"`
	Validation   *StepValidation  `json:"validation"`
	Options      []StepOption     `json:"options"`
	Permissions  []string         `json:"permissions"`
	SurveyID     json.RawMessage  `json:"surveyId"`
	Items        []StepSurveyItem `json:"items"`
	MinOptions   int              `json:"minOptions"`
}

// StepValidation constrains a WAIT_INPUT answer.
type StepValidation struct {
	Retries int      `json:"retries"`
	RegExps []string `json:"regExps"`
}

// StepOption is one choice of a WAIT_SELECTION step.
type StepOption struct {
	Key          string `json:"key"`
	Text         string `json:"text"`
	ColorAck     string `json:"colorAck"`
	TextColorAck string `json:"textColorAck"`
}

// StepSurveyItem is one choice of a SHOW_SURVEY step.
type StepSurveyItem struct {
	ID       int    `json:"id"`
	Text     string `json:"text"`
	Image    string `json:"image"`
	Selected bool   `json:"selected"`
}

// Start returns the steps up to the first that waits; empty once done.
func (s *OnboardingService) Start(ctx context.Context) ([]Step, error) {
	var out []Step
	err := s.c.doJSON(ctx, &request{method: http.MethodGet, path: "/onboarding/start", auth: authToken}, &out)
	return out, err
}

// Answer sends the answer to a waiting step (an object, marshalled to the
// JSON text the contract carries in data) and returns the next steps.
func (s *OnboardingService) Answer(ctx context.Context, stepID string, data any) ([]Step, error) {
	if data == nil {
		data = struct{}{}
	}
	text, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	body, n, err := jsonBody(map[string]string{"data": string(text)})
	if err != nil {
		return nil, err
	}
	var out []Step
	err = s.c.doJSON(ctx, &request{method: http.MethodPost, path: pathOf("onboarding", stepID, "response"), auth: authToken,
		body: body, length: n, contentType: "application/json"}, &out)
	return out, err
}
