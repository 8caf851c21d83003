package actions

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"unicode"
)

// DeviceState is the simulated device panel: what POWER, CHANNEL_SELECT, BRIGHTNESS_UPDATE,
// ACTIVATE, DEACTIVATE and VOLUME_UPDATE changed. It is saved with the schedule, so the
// panel looks the same after a restart.
type DeviceState struct {
	// Power is on/off by device name ("tv", "lights", "air_conditioning", ...).
	Power map[string]bool `json:"power"`
	// Channel is the TV's channel; empty until one is chosen.
	Channel string `json:"channel"`
	// Brightness of the lights, 0..100.
	Brightness int `json:"brightness"`
	// Volume of the player, 0..100.
	Volume int `json:"volume"`
	// Features is on/off by feature name ("wifi", "bluetooth", "do_not_disturb", ...).
	Features map[string]bool `json:"features"`
}

func defaultDevices() DeviceState {
	return DeviceState{
		Power:      map[string]bool{"tv": false, "lights": false},
		Brightness: 100,
		Volume:     100,
		Features:   map[string]bool{},
	}
}

func (d DeviceState) clone() DeviceState {
	c := d
	c.Power = maps.Clone(d.Power)
	c.Features = maps.Clone(d.Features)
	if c.Power == nil {
		c.Power = map[string]bool{}
	}
	if c.Features == nil {
		c.Features = map[string]bool{}
	}
	return c
}

// sanitized keeps what a state file may hold: valid names, levels in range.
func (d DeviceState) sanitized() DeviceState {
	c := DeviceState{
		Power:      map[string]bool{},
		Channel:    cleanText(d.Channel, maxName),
		Brightness: max(0, min(100, d.Brightness)),
		Volume:     max(0, min(100, d.Volume)),
		Features:   map[string]bool{},
	}
	for k, v := range d.Power {
		if n, ok := deviceName(k); ok {
			c.Power[n] = v
		}
	}
	for k, v := range d.Features {
		if n, ok := deviceName(k); ok {
			c.Features[n] = v
		}
	}
	return c
}

// Devices is the device panel.
func (r *Registry) Devices() DeviceState {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.st.Devices.clone()
}

// Volume is the music volume, 0..100.
func (r *Registry) Volume() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.st.Devices.Volume
}

// deviceName normalises a device or feature name to the dialogue's canonical form
// ("Air Conditioning" gives air_conditioning); false when it is not a name.
func deviceName(s string) (string, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer(" ", "_", "-", "_").Replace(s)
	if s == "" || len([]rune(s)) > 40 {
		return "", false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
			return "", false
		}
	}
	return s, true
}

// displayNames are the spellings of canonical names that plain de-underscoring gets wrong.
var displayNames = map[string]string{
	"tv": "TV", "wifi": "Wi-Fi", "bluetooth": "Bluetooth", "nfc": "NFC", "gps": "GPS",
	"air_conditioning": "air conditioning", "do_not_disturb": "do not disturb",
}

// DisplayName is how the panel shows a canonical device or feature name.
func DisplayName(name string) string {
	if d, ok := displayNames[name]; ok {
		return d
	}
	return strings.ReplaceAll(name, "_", " ")
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// changeDevices applies change to the panel, saves it and tells the UI.
func (r *Registry) changeDevices(code string, change func(d *DeviceState) (string, error)) Outcome {
	var summary string
	var after DeviceState
	err := r.mutate(func(st *state) error {
		s, err := change(&st.Devices)
		summary, after = s, st.Devices.clone()
		return err
	})
	if err != nil {
		return failed(code, err)
	}
	r.emit(Event{Kind: DevicesChanged, At: r.clock.Now(), Summary: summary, Devices: after})
	return done(code, summary)
}

func (r *Registry) power(_ context.Context, code string, data json.RawMessage, _ int64) Outcome {
	var d powerData
	if err := decode(code, data, &d); err != nil {
		return failed(code, err)
	}
	name, ok := deviceName(d.Device)
	if !ok {
		return failed(code, &DataError{Code: code, Field: "device", Problem: missingOr(d.Device, "is not a device name")})
	}
	var on bool
	switch strings.ToLower(strings.TrimSpace(d.State)) {
	case "on":
		on = true
	case "off":
	default:
		return failed(code, &DataError{Code: code, Field: "state", Problem: `must be "on" or "off"`})
	}
	return r.changeDevices(code, func(ds *DeviceState) (string, error) {
		ds.Power[name] = on
		return DisplayName(name) + " " + onOff(on), nil
	})
}

func (r *Registry) channelSelect(_ context.Context, code string, data json.RawMessage, _ int64) Outcome {
	var d channelData
	if err := decode(code, data, &d); err != nil {
		return failed(code, err)
	}
	ch, err := channelText(d.Channel)
	if err != nil {
		return failed(code, &DataError{Code: code, Field: "channel", Problem: err.Error()})
	}
	return r.changeDevices(code, func(ds *DeviceState) (string, error) {
		// Choosing a channel on a TV that is off switches it on, as a remote does.
		ds.Power["tv"] = true
		ds.Channel = ch
		return "TV on channel " + ch, nil
	})
}

func (r *Registry) brightnessUpdate(_ context.Context, code string, data json.RawMessage, _ int64) Outcome {
	l, err := decodeLevel(code, data)
	if err != nil {
		return failed(code, err)
	}
	return r.changeDevices(code, func(ds *DeviceState) (string, error) {
		ds.Brightness = l.apply(ds.Brightness)
		// Lights at 0% are off; any other level means they are on.
		ds.Power["lights"] = ds.Brightness > 0
		if ds.Brightness == 0 {
			return "lights off (brightness 0%)", nil
		}
		return fmt.Sprintf("lights at %d%%", ds.Brightness), nil
	})
}

func (r *Registry) activate(_ context.Context, code string, data json.RawMessage, _ int64) Outcome {
	return r.feature(code, data, true)
}

func (r *Registry) deactivate(_ context.Context, code string, data json.RawMessage, _ int64) Outcome {
	return r.feature(code, data, false)
}

func (r *Registry) feature(code string, data json.RawMessage, on bool) Outcome {
	var d featureData
	if err := decode(code, data, &d); err != nil {
		return failed(code, err)
	}
	name, ok := deviceName(d.Feature)
	if !ok {
		return failed(code, &DataError{Code: code, Field: "feature", Problem: missingOr(d.Feature, "is not a feature name")})
	}
	return r.changeDevices(code, func(ds *DeviceState) (string, error) {
		ds.Features[name] = on
		return DisplayName(name) + " " + onOff(on), nil
	})
}

func (r *Registry) volumeUpdate(_ context.Context, code string, data json.RawMessage, _ int64) Outcome {
	l, err := decodeLevel(code, data)
	if err != nil {
		return failed(code, err)
	}
	var volume int
	out := r.changeDevices(code, func(ds *DeviceState) (string, error) {
		ds.Volume = l.apply(ds.Volume)
		volume = ds.Volume
		return fmt.Sprintf("volume %d%%", ds.Volume), nil
	})
	if out.Kind == Done && r.player != nil {
		if err := r.player.SetVolume(volume); err != nil {
			return failed(code, fmt.Errorf("set the player's volume: %w", err))
		}
	}
	return out
}

func (r *Registry) playMusic(ctx context.Context, code string, data json.RawMessage, _ int64) Outcome {
	var d musicData
	if err := decode(code, data, &d); err != nil {
		return failed(code, err)
	}
	u, err := webURL(d.URL)
	if err != nil {
		return failed(code, &DataError{Code: code, Field: "url", Problem: err.Error()})
	}
	if r.player == nil {
		return failed(code, ErrNoPlayer)
	}
	title, artist := cleanText(d.Title, maxLabel), cleanText(d.Artist, maxLabel)
	if err := r.player.SetVolume(r.Volume()); err != nil {
		return failed(code, fmt.Errorf("set the player's volume: %w", err))
	}
	if err := r.player.Play(ctx, u, title, artist); err != nil {
		return failed(code, fmt.Errorf("play %s: %w", u, err))
	}
	track := r.player.NowPlaying()
	if track.URL == "" {
		track = Track{URL: u, Title: title, Artist: artist, Playing: true}
	}
	summary := "playing " + trackName(title, artist, u)
	r.emit(Event{Kind: NowPlaying, At: r.clock.Now(), Summary: summary, Track: track})
	return done(code, summary)
}

func trackName(title, artist, url string) string {
	switch {
	case title != "" && artist != "":
		return title + " — " + artist
	case title != "":
		return title
	case artist != "":
		return artist
	}
	return cleanText(url, 200)
}

func missingOr(value, problem string) string {
	if strings.TrimSpace(value) == "" {
		return "missing"
	}
	return problem
}
