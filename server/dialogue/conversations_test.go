package dialogue

import (
	"context"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/harkhq/hark/server/store/storetest"
)

// testClock is a clock the test moves while the store's writer reads it.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// storedEngine is an engine keeping its conversations in the database at
// dir, as one process of harkd (or one run of hark) does.
func storedEngine(t *testing.T, dir string, clock *testClock) (*Engine, func()) {
	t.Helper()
	db, err := storetest.Open(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	e := New(Config{Clock: clock.Now, MaxConversations: 5})
	closeConvs, err := e.KeepConversationsIn(context.Background(), db)
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	var closed bool
	done := func() {
		if !closed {
			closed = true
			closeConvs()
			db.Close()
		}
	}
	t.Cleanup(done)
	return e, done
}

func storedAsk(t *testing.T, e *Engine, q string, ref, user int64) Response {
	t.Helper()
	r, err := e.Answer(context.Background(), Request{Query: q, Lang: "en", Ref: ref, UserID: user})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A conversation started by one process is continued by the next one on
// the same store, its slots (a day waiting for a clock time) intact.
func TestConversationOutlivesTheProcess(t *testing.T) {
	dir := t.TempDir()
	clock := &testClock{now: time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)}
	first, closeFirst := storedEngine(t, dir, clock)
	r := storedAsk(t, first, "set an alarm for tomorrow", 0, 7)
	if a, _ := actionJSON(t, r); a != "OPEN_ASR" || r.Context.Ref == 0 {
		t.Fatalf("expected a question, got %s", a)
	}
	closeFirst()

	clock.Add(9 * time.Minute)
	second, _ := storedEngine(t, dir, clock)
	if other := storedAsk(t, second, "at nine am", r.Context.Ref, 8); other.Intent == "SET_ALARM" {
		t.Fatal("another user continued the kept conversation")
	}
	got := storedAsk(t, second, "at nine am", r.Context.Ref, 7)
	a, data := actionJSON(t, got)
	want := time.Date(2026, 6, 2, 9, 0, 0, 0, time.UTC).UnixMilli()
	if a != "SET_ALARM" || data != `{"time":"`+strconv.FormatInt(want, 10)+`","label":""}` {
		t.Fatalf("the second process answered %s %s (%q)", a, data, got.Responses.Text)
	}
	// Taken up once: the same ref does not continue it again.
	if again := storedAsk(t, second, "at ten am", r.Context.Ref, 7); again.Intent == "SET_ALARM" {
		t.Fatal("a finished conversation was continued a second time")
	}
}

func TestKeptConversationExpires(t *testing.T) {
	dir := t.TempDir()
	clock := &testClock{now: time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)}
	first, closeFirst := storedEngine(t, dir, clock)
	r := storedAsk(t, first, "set an alarm", 0, 7)
	closeFirst()

	clock.Add(ConversationTTL + time.Second)
	second, closeSecond := storedEngine(t, dir, clock)
	got := storedAsk(t, second, "at nine am", r.Context.Ref, 7)
	if got.Intent == "SET_ALARM" || got.Context.Ref == r.Context.Ref {
		t.Fatalf("a conversation idle past %s continued: %s ref %d", ConversationTTL, got.Intent, got.Context.Ref)
	}
	closeSecond()
	db, err := storetest.Open(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM dialogue_conversations WHERE ref = $1`, r.Context.Ref).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the expired conversation is still stored (%d rows, %v)", n, err)
	}
}

// The table is bounded like the memory: the least recently used go.
func TestKeptConversationsAreBounded(t *testing.T) {
	dir := t.TempDir()
	clock := &testClock{now: time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)}
	e, done := storedEngine(t, dir, clock)
	for i := 0; i < 20; i++ {
		clock.Add(time.Second)
		storedAsk(t, e, "set an alarm", 0, 7)
	}
	done()
	clock.Add(time.Second)
	_, done = storedEngine(t, dir, clock) // sweeps on start
	done()
	db, err := storetest.Open(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM dialogue_conversations`).Scan(&n); err != nil || n != 5 {
		t.Fatalf("%d conversations kept (%v), want the bound of 5", n, err)
	}
}

// Every field of a conversation survives the table.
func TestStoredConversationCoversEveryField(t *testing.T) {
	// A new field in one of these must be carried by storedConversation.
	for typ, n := range map[reflect.Type]int{
		reflect.TypeOf(conversation{}): 9, reflect.TypeOf(slotVal{}): 6, reflect.TypeOf(whenExpr{}): 11,
	} {
		if typ.NumField() != n {
			t.Errorf("%s has %d fields, storedConversation carries %d: update conversations.go", typ, typ.NumField(), n)
		}
	}
	c := &conversation{ref: 42, userID: 7, lang: "es", intent: "SET_ALARM", awaiting: "time", asks: 2,
		seen: time.UnixMilli(1780000000123),
		slots: map[string]slotVal{
			"time":  {text: "mañana", start: 1, end: 3, num: 4, dur: 5 * time.Second, when: whenExpr{day: dayWeekday, weekday: time.Friday, next: true, month: time.April, mday: 11, hasClock: true, hour: 9, minute: 30, mer: "pm", hasRel: true, rel: time.Hour}},
			"label": {text: "pan"},
		}}
	got, err := decodeConversation(c.ref, c.userID, c.seen.UnixMilli(), encodeConversation(c))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, c) {
		t.Fatalf("round trip changed the conversation:\n got %+v\nwant %+v", got, c)
	}
}

// BenchmarkAnswerStored is BenchmarkAnswer with the conversations kept in
// a store: the difference is what keeping them costs an answer.
func BenchmarkAnswerStored(b *testing.B) {
	e, req := benchEngine()
	db, err := storetest.Open(b, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	closeConvs, err := e.KeepConversationsIn(context.Background(), db)
	if err != nil {
		b.Fatal(err)
	}
	defer closeConvs()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, ok := processCPU()
	for i := 0; i < b.N; i++ {
		req.Query = benchQueries[i%len(benchQueries)]
		if _, err := e.Answer(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu0, ok)
}
