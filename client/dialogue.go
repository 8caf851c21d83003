package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// DialogueService covers /query/*.
type DialogueService struct{ c *Client }

// DialogueResponse is the dialogue answer (DECISIONS §5).
type DialogueResponse struct {
	Context struct {
		ID  string `json:"id"`
		Ref int64  `json:"ref"`
	} `json:"context"`
	Responses struct {
		HTML   string `json:"html"`
		Text   string `json:"text"`
		Speech string `json:"speech"`
		Audio  string `json:"audio"`
		Query  string `json:"query"`
	} `json:"responses"`
	NextActions []Action `json:"nextActions"`
	// Explain is how the server read the query; only when asked for
	// (the Explain option).
	Explain *Explanation `json:"explain,omitempty"`
	// Lang is the language the answer is in (Content-Language): the one
	// asked for, or the query's own when the client named none.
	Lang string `json:"-"`
}

// Explanation is the "explain" member of an answer: how the query was read
// (README, Dialogue).
type Explanation struct {
	Lang string `json:"lang"`
	// LangFrom says where Lang came from: "request", "detected", or a
	// detection that overrode the request's language.
	LangFrom string `json:"langFrom"`
	Intent   string `json:"intent"`
	// Requests are the words of each request when the query said several,
	// all answered; Pattern and Slots are then the first's.
	Requests []string `json:"requests,omitempty"`
	// Pattern is the phrase that matched and Cost its edit distance to the
	// query (lower is closer); empty when nothing matched or the query
	// answered a question, which Answers then names.
	Pattern     string          `json:"pattern,omitempty"`
	Cost        float64         `json:"cost"`
	Answers     string          `json:"answers,omitempty"`
	Slots       []ExplainedSlot `json:"slots"`
	Corrections []Correction    `json:"corrections"`
	// Hypotheses are, for a spoken query, the readings of its audio the
	// server weighed (a grammar decoding, a full-model one, ...): absent for
	// typed queries and from servers that do not report them.
	Hypotheses []Hypothesis `json:"hypotheses,omitempty"`
	// SpeechWaitMs is, for a spoken query, how long it waited for the
	// server's speech engines to start (they load once after the server
	// starts; on a new machine their models are built first): 0 when they
	// were ready.
	SpeechWaitMs int64 `json:"speechWaitMs,omitempty"`
	// Speaker is, for a spoken query, what the server had learnt of its
	// speaker from their earlier utterances (absent from servers that do
	// not report it).
	Speaker *SpeakerReading `json:"speaker,omitempty"`
}

// SeveralRequests says, as the explain views show it, that the query said
// several requests, each quoted; "" when it said one.
func (x *Explanation) SeveralRequests() string {
	if len(x.Requests) < 2 {
		return ""
	}
	q := make([]string, len(x.Requests))
	for i, r := range x.Requests {
		q[i] = fmt.Sprintf("%q", r)
	}
	return fmt.Sprintf("%d requests, all answered: %s (the first is read below)", len(q), strings.Join(q, ", "))
}

// SpeakerReading is how the server heard a spoken query's speaker: the
// warp of its recogniser's filters for their voice (1: the model's own)
// and what its acoustic model was adapted to: "speaker" (their voice),
// "narrowband" (8 kHz audio's band) or nothing ("").
type SpeakerReading struct {
	Warp    float64 `json:"warp"`
	Adapted string  `json:"adapted,omitempty"`
}

// String is the reading in words, as the explain views show it.
func (s SpeakerReading) String() string {
	model := "model not adapted to this voice"
	switch s.Adapted {
	case "speaker":
		model = "model adapted to this voice"
	case "narrowband":
		model = "model adapted to the 8 kHz band"
	case "":
	default:
		model = "model adapted to " + s.Adapted
	}
	if s.Warp == 1 {
		return "speaker: the model's own filters, " + model
	}
	return fmt.Sprintf("speaker: filters warped ×%.2f, %s", s.Warp, model)
}

// Hypothesis is one reading of a spoken query's audio: its text, which
// decoder gave it (Source, e.g. "grammar" or "full"), its score, whether
// the server chose it and why (Reason). Gate, when set, is the acoustic
// gate that turned it down before it could compete: it was more than Gate
// per frame below its decoder's best path (absent from servers before
// it).
type Hypothesis struct {
	Text   string   `json:"text"`
	Source string   `json:"source"`
	Score  float64  `json:"score"`
	Chosen bool     `json:"chosen"`
	Reason string   `json:"reason"`
	Gate   *float64 `json:"gate,omitempty"`
}

// ExplainedSlot is one slot: the words of the query it took and its value.
type ExplainedSlot struct {
	Name  string `json:"name"`
	Words string `json:"words,omitempty"`
	Value string `json:"value"`
}

// Correction is a typed word the server read as another.
type Correction struct {
	Typed string `json:"typed"`
	Read  string `json:"read"`
}

// QueryOption changes one dialogue request.
type QueryOption func(*queryOptions)

type queryOptions struct{ explain bool }

// Explain asks the server to add how it read the query (Service-Explain: 1).
func Explain() QueryOption { return func(o *queryOptions) { o.explain = true } }

func queryHeader(opts []QueryOption, h http.Header) http.Header {
	var o queryOptions
	for _, f := range opts {
		f(&o)
	}
	if h == nil {
		h = http.Header{}
	}
	if o.explain {
		h.Set("Service-Explain", "1")
	}
	return h
}

// Action is one next action for the client to carry out.
type Action struct {
	Action string          `json:"action"`
	Data   json.RawMessage `json:"data"`
}

// actionCodes are the next action codes of the contract (platform-services, "Next Actions").
var actionCodes = []string{"ACTIVATE", "BRIGHTNESS_UPDATE", "CHANNEL_SELECT", "DEACTIVATE", "DELETE_ALARM",
	"DELETE_TIMER", "MAKE_CALL", "NAVIGATE", "OPEN_APP", "OPEN_ASR", "OPEN_BROWSER", "OPEN_URL", "PLAY_MUSIC", "POWER",
	"RESET_CRONO", "SEND_EMAIL", "SEND_SMS", "SET_ALARM", "SET_APPOINTMENT", "SET_CRONO", "SET_TIMER",
	"VOLUME_UPDATE"}

// ActionCodes lists the contract's next action codes, sorted; the slice is the caller's.
func ActionCodes() []string { return append([]string(nil), actionCodes...) }

// UnmarshalJSON reads both the nextActions array and the documented single
// next_action object, so answers of either form arrive as NextActions.
func (r *DialogueResponse) UnmarshalJSON(b []byte) error {
	type plain DialogueResponse
	var v struct {
		plain
		NextAction *Action `json:"next_action"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = DialogueResponse(v.plain)
	if v.NextAction != nil && v.NextAction.Action != "" {
		r.NextActions = append(r.NextActions, *v.NextAction)
	}
	if r.NextActions == nil {
		r.NextActions = []Action{}
	}
	return nil
}

// Asks tells whether the answer waits for the user (OPEN_ASR): the next
// turn should carry Context.Ref.
func (r *DialogueResponse) Asks() bool {
	for _, a := range r.NextActions {
		if a.Action == "OPEN_ASR" {
			return true
		}
	}
	return false
}

// Text sends a typed query. ref continues a conversation (0 starts one);
// the position comes from the client's RequestInfo.
func (s *DialogueService) Text(ctx context.Context, q string, ref int64, opts ...QueryOption) (*DialogueResponse, error) {
	body, n, err := jsonBody(map[string]string{"q": q})
	if err != nil {
		return nil, err
	}
	resp, err := s.c.do(ctx, &request{method: http.MethodPost, path: "/query/text", auth: authToken,
		body: body, length: n, contentType: "application/json", requestInfo: true, ref: ref,
		header: queryHeader(opts, nil)})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var out DialogueResponse
	if err := decodeBody(resp, &out); err != nil {
		return nil, err
	}
	out.Lang = answerLanguage(resp.Header)
	return &out, nil
}

// answerLanguage is the primary tag of Content-Language ("es" of "es-ES").
func answerLanguage(h http.Header) string {
	l := strings.TrimSpace(h.Get("Content-Language"))
	if i := strings.IndexAny(l, ",;-_ "); i >= 0 {
		l = l[:i]
	}
	return strings.ToLower(l)
}
