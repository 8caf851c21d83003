package client

import (
	"context"
	"encoding/json"
	"net/http"
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
func (s *DialogueService) Text(ctx context.Context, q string, ref int64) (*DialogueResponse, error) {
	body, n, err := jsonBody(map[string]string{"q": q})
	if err != nil {
		return nil, err
	}
	var out DialogueResponse
	err = s.c.doJSON(ctx, &request{method: http.MethodPost, path: "/query/text", auth: authToken,
		body: body, length: n, contentType: "application/json", requestInfo: true, ref: ref}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}
