package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/harkhq/hark/client"
)

// explanation is the "explain" member harkd adds to a dialogue answer when
// the request carries Service-Explain: 1 (see the README's dialogue notes).
type explanation struct {
	Lang     string  `json:"lang"`
	LangFrom string  `json:"langFrom"`
	Intent   string  `json:"intent"`
	Pattern  string  `json:"pattern"`
	Cost     float64 `json:"cost"`
	Answers  string  `json:"answers"`
	Slots    []struct {
		Name, Words, Value string
	} `json:"slots"`
	Corrections []struct {
		Typed, Read string
	} `json:"corrections"`
}

// explainTransport asks for the explanation and keeps the answer's body,
// whose "explain" member the client's typed answer leaves out.
type explainTransport struct {
	base http.RoundTripper
	body []byte
}

func (t *explainTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Service-Explain", "1")
	resp, err := t.base.RoundTrip(req)
	if err != nil || !strings.HasSuffix(req.URL.Path, "/query/text") {
		return resp, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	t.body = body
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// sayExplained asks like c.Dialogue.Text, through a copy of c that asks
// for the explanation, and returns the answer's raw JSON too.
func sayExplained(ctx context.Context, c *client.Client, q string, ref int64) (*client.DialogueResponse, *explanation, []byte, error) {
	cfg := c.Config()
	base := http.DefaultTransport
	if cfg.HTTPClient != nil && cfg.HTTPClient.Transport != nil {
		base = cfg.HTTPClient.Transport
	}
	tr := &explainTransport{base: base}
	cfg.HTTPClient = &http.Client{Transport: tr}
	ec, err := client.New(cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	ec.SetToken(c.Token())
	ec.SetRequestInfo(c.RequestInfo())
	resp, err := ec.Dialogue.Text(ctx, q, ref)
	if err != nil {
		return nil, nil, nil, err
	}
	var body struct {
		Explain *explanation `json:"explain"`
	}
	if err := json.Unmarshal(tr.body, &body); err != nil || body.Explain == nil {
		return resp, nil, tr.body, fmt.Errorf("the server sent no explanation (an older harkd?)")
	}
	return resp, body.Explain, tr.body, nil
}

func printExplanation(w io.Writer, x *explanation) {
	fmt.Fprintf(w, "explain: language %s (%s), intent %s\n", x.Lang, x.LangFrom, x.Intent)
	if x.Pattern != "" {
		fmt.Fprintf(w, "  pattern %q, cost %.2f\n", x.Pattern, x.Cost)
	}
	if x.Answers != "" {
		fmt.Fprintf(w, "  answers the question for %s\n", x.Answers)
	}
	for _, s := range x.Slots {
		if s.Words != "" {
			fmt.Fprintf(w, "  slot %s: %q = %s\n", s.Name, s.Words, s.Value)
		} else {
			fmt.Fprintf(w, "  slot %s = %s\n", s.Name, s.Value)
		}
	}
	for _, c := range x.Corrections {
		fmt.Fprintf(w, "  corrected %q to %q\n", c.Typed, c.Read)
	}
}
