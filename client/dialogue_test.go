package client_test

import (
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
)

func TestDialogueWeatherComesFromTheWeatherItem(t *testing.T) {
	c := signedIn(t)
	ctx := ctxT(t)
	at(c, 40.4168, -3.7038)
	items, err := c.Items.List(ctx, "weather", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var w client.WeatherItem
	if err := items.Decode(0, &w); err != nil {
		t.Fatal(err)
	}
	answer, err := c.Dialogue.Text(ctx, "what's the weather in Madrid", 0)
	if err != nil {
		t.Fatal(err)
	}
	if answer.Responses.Query != "what's the weather in Madrid" || answer.Context.ID == "" || answer.Context.Ref == 0 {
		t.Fatalf("answer %+v", answer)
	}
	temp := strconv.Itoa(int(math.Round(w.Current.TempCurrent)))
	if !strings.Contains(answer.Responses.Text, "Madrid") || !strings.Contains(answer.Responses.Text, temp) {
		t.Fatalf("weather answer %q does not carry Madrid's current %s°", answer.Responses.Text, temp)
	}
	if answer.Responses.Speech == "" || answer.Responses.HTML == "" || answer.NextActions == nil {
		t.Fatalf("answer fields: %+v", answer)
	}
}

func TestDialogueSlotFillingThroughRef(t *testing.T) {
	c := signedIn(t)
	ctx := ctxT(t)
	first, err := c.Dialogue.Text(ctx, "set an alarm", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Asks() || first.Context.Ref == 0 {
		t.Fatalf("'set an alarm' did not ask for the time: %+v", first)
	}
	second, err := c.Dialogue.Text(ctx, "seven am", first.Context.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if len(second.NextActions) != 1 || second.NextActions[0].Action != "SET_ALARM" {
		t.Fatalf("follow-up answered %+v", second.NextActions)
	}
	var data struct{ Time, Label string }
	if err := json.Unmarshal(second.NextActions[0].Data, &data); err != nil || data.Time == "" {
		t.Fatalf("SET_ALARM data %s: %v", second.NextActions[0].Data, err)
	}
	// An unknown ref starts afresh rather than failing.
	fresh, err := c.Dialogue.Text(ctx, "seven am", 123456789)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Context.Ref == 123456789 {
		t.Fatal("an unknown ref was continued")
	}
}

func TestDialogueSpanish(t *testing.T) {
	p := servertestStart(t)
	c, err := client.New(client.Config{BaseURL: p.BaseURL, PublicKey: p.PublicKey, PrivateKey: p.PrivateKey,
		Language: "es", TimeZone: "Europe/Madrid"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	if _, _, err := c.Auth.Anonymous(ctx, "hablante", "d", "Lola"); err != nil {
		t.Fatal(err)
	}
	a, err := c.Dialogue.Text(ctx, "pon un temporizador de diez minutos", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.NextActions) != 1 || a.NextActions[0].Action != "SET_TIMER" {
		t.Fatalf("Spanish timer: %+v", a)
	}
	var data struct{ Duration int64 }
	json.Unmarshal(a.NextActions[0].Data, &data)
	if time.Duration(data.Duration)*time.Millisecond != 10*time.Minute {
		t.Fatalf("duration %d ms", data.Duration)
	}
}

func TestDialogueBadInput(t *testing.T) {
	c := signedIn(t)
	ctx := ctxT(t)
	// An empty, blank or over-long query is answered politely, with no
	// action (issue 16); only a malformed request is a 400.
	for _, q := range []string{"", "   ", strings.Repeat("hello ", 2000)} {
		a, err := c.Dialogue.Text(ctx, q, 0)
		if err != nil || a.Responses.Text == "" || len(a.NextActions) != 0 {
			t.Fatalf("q of %d bytes: %+v %v", len(q), a, err)
		}
	}
	req, _ := http.NewRequest("POST", c.Config().BaseURL+"/query/text", strings.NewReader(`{"q":"hi"}`))
	req.Header.Set("Authorization", "Basic "+c.Token())
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Service-Request-Info", `{not json`)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("malformed Service-Request-Info: %d", resp.StatusCode)
	}
	// Without a token.
	anon, _ := newClient(t, server.Config{})
	_, err = anon.Dialogue.Text(ctx, "hello", 0)
	wantCode(t, err, 401, "TokenExpired")
}

// PLAY_MUSIC points at a real, playable track that harkd serves.
func TestDialoguePlayMusic(t *testing.T) {
	c := signedIn(t)
	ctx := ctxT(t)
	a, err := c.Dialogue.Text(ctx, "play some jazz", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.NextActions) != 1 || a.NextActions[0].Action != "PLAY_MUSIC" {
		t.Fatalf("actions %+v", a.NextActions)
	}
	var m struct{ URL, Title, Artist string }
	if err := json.Unmarshal(a.NextActions[0].Data, &m); err != nil || !strings.HasPrefix(m.URL, "http://") || m.Title == "" {
		t.Fatalf("PLAY_MUSIC data %s: %v", a.NextActions[0].Data, err)
	}
	resp, err := http.Get(m.URL)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "audio/mpeg" {
		t.Fatalf("track: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if d := decodesAsMP3(t, data); d < 10*time.Second {
		t.Fatalf("the track lasts %s", d)
	}
	resp, _ = http.Get(strings.Replace(m.URL, ".mp3", "-nope.mp3", 1))
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("unknown track answered %d", resp.StatusCode)
	}
}

// Without a chosen language no Accept-Language goes out, and the server
// answers each query in its own language, named in Content-Language; the
// Explain option brings the typed explanation, absent otherwise.
func TestDialogueAutoLanguageAndExplain(t *testing.T) {
	c := signedIn(t)
	ctx := ctxT(t)
	if c.Config().Language != "" {
		t.Fatalf("a new client forces %q", c.Config().Language)
	}
	es, err := c.Dialogue.Text(ctx, "pon un temporizador de diez minutos", 0)
	if err != nil {
		t.Fatal(err)
	}
	if es.Lang != "es" || es.Explain != nil {
		t.Fatalf("Spanish in auto: lang %q, explain %+v (%q)", es.Lang, es.Explain, es.Responses.Text)
	}
	en, err := c.Dialogue.Text(ctx, "set a tiemr for 5 minutes", 0, client.Explain())
	if err != nil {
		t.Fatal(err)
	}
	x := en.Explain
	if en.Lang != "en" || x == nil {
		t.Fatalf("English with Explain: lang %q, explain %+v", en.Lang, x)
	}
	if x.Lang != "en" || x.LangFrom != "detected" || x.Intent != "SET_TIMER" || x.Pattern == "" {
		t.Errorf("explanation %+v", x)
	}
	if len(x.Corrections) != 1 || x.Corrections[0] != (client.Correction{Typed: "tiemr", Read: "timer"}) {
		t.Errorf("corrections %+v", x.Corrections)
	}
	if len(x.Slots) != 1 || x.Slots[0].Name != "duration" || x.Slots[0].Words != "5 minutes" {
		t.Errorf("slots %+v", x.Slots)
	}
	// A chosen language is sent and named back.
	c.SetLanguage("es")
	chosen, err := c.Dialogue.Text(ctx, "hola", 0, client.Explain())
	if err != nil {
		t.Fatal(err)
	}
	if chosen.Lang != "es" || chosen.Explain == nil || chosen.Explain.LangFrom != "request" {
		t.Errorf("chosen Spanish: lang %q, explain %+v", chosen.Lang, chosen.Explain)
	}
}
