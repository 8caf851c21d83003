// Package media is harkd's music library: a catalogue of tracks whose audio
// is synthesised on first request (additive and FM synthesis of a chord
// progression, bass, melody and drums in the manner of the track's genre,
// deterministic from the track id), encoded as MP3 with libmp3lame and
// cached in a directory, so that no audio is committed or downloaded.
package media

import "sort"

// Track is one piece of music in the catalogue.
type Track struct {
	ID     string `json:"id"` // lowercase letters, digits and underscores
	Title  string `json:"title"`
	Artist string `json:"artist"`
	Album  string `json:"album"`
	Genre  string `json:"genre"`
	Mood   string `json:"mood"` // one of the Mood constants
}

// Moods of the catalogue: what a listener asks for ("something upbeat",
// "música tranquila").
const (
	Energetic = "energetic"
	Upbeat    = "upbeat"
	Relaxed   = "relaxed"
	Calm      = "calm"
	Sad       = "melancholic"
	Focused   = "focused"
)

// Genres of the catalogue.
const (
	Rock       = "rock"
	Jazz       = "jazz"
	Classical  = "classical"
	Pop        = "pop"
	Electronic = "electronic"
	Ambient    = "ambient"
	Country    = "country"
	Blues      = "blues"
	Reggae     = "reggae"
)

// The artists and albums are invented: the tracks are synthesised here.
var catalogue = []Track{
	{"rock_midnight_highway", "Midnight Highway", "The Loud Hours", "Night Miles", Rock, Energetic},
	{"rock_iron_sparrow", "Iron Sparrow", "The Loud Hours", "Night Miles", Rock, Energetic},
	{"rock_broken_amplifier", "Broken Amplifier", "Gravel Kings", "Feedback Season", Rock, Energetic},
	{"rock_desert_thunder", "Desert Thunder", "Gravel Kings", "Feedback Season", Rock, Upbeat},
	{"jazz_blue_corner", "Blue Corner", "Nina Marlowe Trio", "Corner Sessions", Jazz, Relaxed},
	{"jazz_late_night_walk", "Late Night Walk", "Nina Marlowe Trio", "Corner Sessions", Jazz, Sad},
	{"jazz_smoke_rings", "Smoke Rings", "Oscar Bell Quartet", "Bell Tones", Jazz, Relaxed},
	{"jazz_rainy_avenue", "Rainy Avenue", "Oscar Bell Quartet", "Bell Tones", Jazz, Sad},
	{"classical_morning_prelude", "Morning Prelude", "Aurelia Chamber Strings", "Garden Suites", Classical, Calm},
	{"classical_garden_minuet", "Garden Minuet", "Aurelia Chamber Strings", "Garden Suites", Classical, Focused},
	{"classical_autumn_elegy", "Autumn Elegy", "Teodor Vance", "Piano Elegies", Classical, Sad},
	{"pop_summer_lights", "Summer Lights", "Mia Sol", "Golden Hour", Pop, Upbeat},
	{"pop_paper_hearts", "Paper Hearts", "Mia Sol", "Golden Hour", Pop, Upbeat},
	{"pop_city_of_stars", "City of Stars Tonight", "The Polaroids", "Snapshots", Pop, Energetic},
	{"electronic_neon_pulse", "Neon Pulse", "Circuit Garden", "Voltage Bloom", Electronic, Energetic},
	{"electronic_night_drive", "Night Drive", "Circuit Garden", "Voltage Bloom", Electronic, Focused},
	{"electronic_binary_sunset", "Binary Sunset", "Vektor Lane", "Low Sun", Electronic, Relaxed},
	{"ambient_still_water", "Still Water", "Halden Fields", "Quiet Acres", Ambient, Calm},
	{"ambient_northern_glow", "Northern Glow", "Halden Fields", "Quiet Acres", Ambient, Focused},
	{"ambient_slow_clouds", "Slow Clouds", "Mirrorlake", "Drift Logs", Ambient, Calm},
	{"country_two_lane_sunday", "Two Lane Sunday", "Wade Calloway", "Gravel Road Hymns", Country, Upbeat},
	{"country_dusty_porch_light", "Dusty Porch Light", "Wade Calloway", "Gravel Road Hymns", Country, Sad},
	{"country_whiskey_creek", "Whiskey Creek", "The Tumbleweed Sisters", "Red Dirt Radio", Country, Energetic},
	{"blues_rent_day_shuffle", "Rent Day Shuffle", "Slim Delaney", "Back Room Recordings", Blues, Upbeat},
	{"blues_tin_roof_rain", "Tin Roof Rain", "Slim Delaney", "Back Room Recordings", Blues, Sad},
	{"blues_last_freight_home", "Last Freight Home", "Big Ruth Calhoun", "Lamp Oil", Blues, Relaxed},
	{"reggae_sea_wall_breeze", "Sea Wall Breeze", "Desmond Vale", "Yard Lanterns", Reggae, Relaxed},
	{"reggae_hillside_sound", "Hillside Sound", "Desmond Vale", "Yard Lanterns", Reggae, Upbeat},
	{"reggae_slow_tide_rising", "Slow Tide Rising", "The Sunday Selectors", "Riddim Almanac", Reggae, Calm},
}

var byID = func() map[string]Track {
	m := make(map[string]Track, len(catalogue))
	for _, t := range catalogue {
		m[t.ID] = t
	}
	return m
}()

// Tracks returns the catalogue, ordered by genre then title.
func Tracks() []Track {
	out := append([]Track(nil), catalogue...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Genre != out[j].Genre {
			return out[i].Genre < out[j].Genre
		}
		return out[i].Title < out[j].Title
	})
	return out
}

// Lookup returns the track with id.
func Lookup(id string) (Track, bool) {
	t, ok := byID[id]
	return t, ok
}

// ByGenre returns the tracks of one genre (none for an unknown genre).
func ByGenre(genre string) []Track {
	var out []Track
	for _, t := range Tracks() {
		if t.Genre == genre {
			out = append(out, t)
		}
	}
	return out
}
