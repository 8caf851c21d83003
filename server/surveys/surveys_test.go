package surveys

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/store/storetest"
)

func newService(t *testing.T) *Service {
	t.Helper()
	db, err := storetest.Open(t, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := New(db)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func wantStatus(t *testing.T, err error, status int, code string) {
	t.Helper()
	e, ok := apierr.As(err)
	if !ok || e.Status != status || e.Code != code {
		t.Fatalf("error %v, want %d %s", err, status, code)
	}
}

func TestCatalogue(t *testing.T) {
	s := newService(t)
	ctx := context.Background()
	list, err := s.List(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) < 5 {
		t.Fatalf("%d surveys, want at least 5", len(list))
	}
	for _, e := range list {
		d, err := s.Get(ctx, 1, e.SurveyID, "http://h:1")
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Items) < 8 {
			t.Errorf("survey %q has %d items", d.Title, len(d.Items))
		}
		for _, it := range d.Items {
			name, ok := strings.CutPrefix(it.Imagen, "http://h:1/v2/media/icons/")
			if !ok || !strings.HasSuffix(name, ".png") {
				t.Fatalf("imagen %q", it.Imagen)
			}
			b, ok := Icon(strings.TrimSuffix(name, ".png"))
			if !ok {
				t.Fatalf("no icon for %q", it.Imagen)
			}
			if _, err := png.Decode(bytes.NewReader(b)); err != nil {
				t.Fatalf("icon %s: %v", name, err)
			}
			if it.Selected || it.Weight != 0 {
				t.Errorf("fresh user has %+v", it)
			}
		}
	}
	if _, ok := Icon("../etc/passwd"); ok {
		t.Error("Icon served an unknown name")
	}
	// A base URL that already ends in /v2 must not double the segment.
	d, _ := s.Get(ctx, 1, 1, "http://h:1/v2/")
	if !strings.HasPrefix(d.Items[0].Imagen, "http://h:1/v2/media/icons/") {
		t.Errorf("imagen %q", d.Items[0].Imagen)
	}
}

func TestJSONFieldNames(t *testing.T) {
	s := newService(t)
	d, _ := s.Get(context.Background(), 1, 2, "http://h")
	b, _ := json.Marshal(d)
	for _, f := range []string{`"id":2`, `"title":`, `"items":[{"id":1,"texto":`, `"imagen":`, `"selected":false`, `"weight":0`} {
		if !bytes.Contains(b, []byte(f)) {
			t.Errorf("detail JSON %s lacks %s", b, f)
		}
	}
	l, _ := s.List(context.Background(), 1)
	b, _ = json.Marshal(l[0])
	if !bytes.Contains(b, []byte(`"surveyId":1,"title":`)) {
		t.Errorf("entry JSON %s", b)
	}
}

func TestSelectDeselectAndUnknownIDs(t *testing.T) {
	s := newService(t)
	ctx := context.Background()
	d, err := s.Select(ctx, 7, 3, []int{1, 4}, "http://h")
	if err != nil {
		t.Fatal(err)
	}
	if !d.Items[0].Selected || !d.Items[3].Selected || d.Items[1].Selected {
		t.Fatalf("selection not applied: %+v", d.Items[:4])
	}
	if d.Items[0].Weight != 1 || d.Items[1].Weight != 0 {
		t.Fatalf("weights %+v", d.Items[:2])
	}
	// Replacing the selection deselects item 1 (weight back to 0).
	if _, err := s.Select(ctx, 7, 3, []int{4, 5}, "http://h"); err != nil {
		t.Fatal(err)
	}
	d, _ = s.Get(ctx, 7, 3, "http://h")
	if d.Items[0].Selected || d.Items[0].Weight != 0 || !d.Items[4].Selected || d.Items[4].Weight != 1 {
		t.Fatalf("after replace: %+v", d.Items[:5])
	}
	// Another user is untouched.
	o, _ := s.Get(ctx, 8, 3, "http://h")
	if o.Items[3].Selected {
		t.Fatal("selection leaked to another user")
	}
	// An unknown item id: 400 and nothing changes.
	_, err = s.Select(ctx, 7, 3, []int{1, 999}, "http://h")
	wantStatus(t, err, http.StatusBadRequest, apierr.InvalidArgument)
	after, _ := s.Get(ctx, 7, 3, "http://h")
	if !equalDetail(d, after) {
		t.Fatalf("failed select changed state: %+v", after.Items)
	}
	// Unknown survey: 404 for Get and Select.
	_, err = s.Get(ctx, 7, 42, "http://h")
	wantStatus(t, err, http.StatusNotFound, apierr.EntityNotFound)
	_, err = s.Select(ctx, 7, 42, []int{1}, "http://h")
	wantStatus(t, err, http.StatusNotFound, apierr.EntityNotFound)
	// Empty selection clears everything selected.
	d, _ = s.Select(ctx, 7, 3, nil, "http://h")
	for _, it := range d.Items {
		if it.Selected || it.Weight != 0 {
			t.Fatalf("empty selection left %+v", it)
		}
	}
}

func equalDetail(a, b Detail) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func TestNudgeAndProfile(t *testing.T) {
	s := newService(t)
	ctx := context.Background()
	n, err := s.Nudge(ctx, 3, "music:jazz")
	if err != nil || n != 1 {
		t.Fatalf("nudge: %d %v", n, err)
	}
	n, _ = s.Nudge(ctx, 3, "Jazz")
	if n != 1 {
		t.Fatalf("bare topic matched %d items", n)
	}
	p, err := s.Profile(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	// Two nudges from 0: 0.25, then 0.25 + 0.25*0.75 = 0.4375.
	if got := p["music:jazz"]; math.Abs(got-0.4375) > 1e-9 {
		t.Fatalf("jazz weight %v, want 0.4375", got)
	}
	d, _ := s.Get(ctx, 3, 2, "http://h")
	if d.Items[2].Selected {
		t.Fatal("nudge selected the item")
	}
	// Many nudges approach but never pass 1.
	for i := 0; i < 60; i++ {
		s.Nudge(ctx, 3, "jazz")
	}
	p, _ = s.Profile(ctx, 3)
	if w := p["music:jazz"]; w > 1 || w < 0.99 {
		t.Fatalf("after many nudges weight %v", w)
	}
	// Selection sets 1; unknown topics match nothing and are no error.
	s.Select(ctx, 3, 3, []int{1}, "")
	p, _ = s.Profile(ctx, 3)
	if p["cuisine:italian"] != 1 {
		t.Fatalf("profile %v", p)
	}
	if n, err := s.Nudge(ctx, 3, "quidditch"); n != 0 || err != nil {
		t.Fatalf("unknown topic: %d %v", n, err)
	}
	if n, _ := s.Nudge(ctx, 3, ""); n != 0 {
		t.Fatal("empty topic matched")
	}
	// Deselecting a nudged-then-selected item drops it from the profile.
	s.Select(ctx, 3, 3, nil, "")
	p, _ = s.Profile(ctx, 3)
	if _, ok := p["cuisine:italian"]; ok {
		t.Fatalf("deselected item still in profile %v", p)
	}
}
