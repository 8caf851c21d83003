package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/internal/uitest"
)

// The city, the language and the screen chosen are there again on the
// next start, from the settings file.
func TestSettingsStickAcrossRestarts(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	uitest.ItemsFixture(f)
	uitest.StorageFixture(f)
	path := filepath.Join(t.TempDir(), "state", "settings.json")
	opt := testOptions(f.Client(t), true)
	opt.Settings = FileSettings(path)
	a := newTestApp(t, opt, 100, 30)
	press(t, a, "alt+i")
	press(t, a, "c") // the next city
	city := common.PositionName(opt.Client)
	if opt.Client.Config().Language != "" {
		t.Fatalf("the console forces %q before any choice", opt.Client.Config().Language)
	}
	press(t, a, "alt+g") // auto → English
	press(t, a, "alt+g") // → Spanish
	if opt.Client.Config().Language != "es" || !strings.Contains(a.View(), "answers are now in Spanish") {
		t.Fatalf("alt+g did not switch to Spanish (%q):\n%s", opt.Client.Config().Language, a.View())
	}
	press(t, a, "alt+s")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"screen": "storage"`) || !strings.Contains(string(b), `"language": "es"`) {
		t.Fatalf("settings file: %s", b)
	}

	// A new start: a fresh client, the same settings file.
	g := uitest.NewFakePlatform(t)
	uitest.StorageFixture(g)
	next := testOptions(g.Client(t), true)
	next.Settings = FileSettings(path)
	n := newTestApp(t, next, 100, 30)
	if n.active != common.ScreenStorage {
		t.Errorf("opened on %v, not the storage screen left last", n.active)
	}
	if got := common.PositionName(next.Client); got != city || city == "San Francisco" {
		t.Errorf("position %q, want the city chosen (%q)", got, city)
	}
	if next.Client.Config().Language != "es" {
		t.Errorf("language %q, want es", next.Client.Config().Language)
	}
	// Signed out, the sign-in screen comes first whatever was remembered.
	out := testOptions(g.Client(t), false)
	out.Settings = FileSettings(path)
	if s := newTestApp(t, out, 100, 30); s.active != common.ScreenSignIn {
		t.Errorf("signed out, opened on %v", s.active)
	}
}

func TestSettingsFileUnreadableIsNoSettings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(path, []byte("{not json"), 0o600)
	f := uitest.NewFakePlatform(t)
	opt := testOptions(f.Client(t), true)
	opt.Settings = FileSettings(path)
	if a := newTestApp(t, opt, 80, 24); a.active != common.ScreenConsole {
		t.Fatalf("a broken settings file opened %v", a.active)
	}
}

// alt+g offers auto, English and Spanish in turn; auto is remembered as
// auto, not as "nothing chosen" (which would bring back --lang's choice).
func TestLanguageAutoIsRemembered(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	path := filepath.Join(t.TempDir(), "settings.json")
	opt := testOptions(f.Client(t), true)
	opt.Client.SetLanguage("es") // as --lang es would
	opt.Settings = FileSettings(path)
	a := newTestApp(t, opt, 100, 30)
	press(t, a, "alt+g") // es → auto
	if opt.Client.Config().Language != "" || !strings.Contains(a.View(), "language of each question (auto)") {
		t.Fatalf("alt+g after Spanish: %q\n%s", opt.Client.Config().Language, a.View())
	}
	press(t, a, "alt+s")
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), `"language": "auto"`) {
		t.Fatalf("settings file: %s", b)
	}
	next := testOptions(uitest.NewFakePlatform(t).Client(t), true)
	next.Client.SetLanguage("es")
	next.Settings = FileSettings(path)
	newTestApp(t, next, 100, 30)
	if got := next.Client.Config().Language; got != "" {
		t.Errorf("auto remembered, yet the next start uses %q", got)
	}
}
