package common

import (
	"encoding/json"
	"io/fs"
	"log/slog"
	"sort"
	"sync"

	"github.com/harkhq/hark/assets"
	"github.com/harkhq/hark/client"
)

// City is a sandbox city of the platform (its centre), offered as the
// position sent with item and dialogue requests: a terminal has no GPS,
// so the user picks where they are.
type City struct {
	Slug string  `json:"slug"`
	Name string  `json:"name"`
	Lat  float64 `json:"lat"`
	Lon  float64 `json:"lon"`
}

var (
	citiesOnce sync.Once
	cities     []City
)

// Cities are the sandbox cities of assets/data/cities, west to east (the
// order the sun crosses them, so the list reads like time zones).
func Cities() []City {
	citiesOnce.Do(func() {
		dir := assets.Sub("cities")
		names, err := fs.Glob(dir, "*.json")
		if err != nil {
			slog.Error("sandbox cities", "err", err)
			return
		}
		for _, n := range names {
			b, err := fs.ReadFile(dir, n)
			if err != nil {
				continue
			}
			var c City
			// The shared catalogues (movies, news, ...) have no slug.
			if json.Unmarshal(b, &c) != nil || c.Slug == "" || c.Name == "" {
				continue
			}
			cities = append(cities, c)
		}
		sort.Slice(cities, func(i, j int) bool { return cities[i].Lon < cities[j].Lon })
	})
	return cities
}

// CityIndex is the city at the client's position, or -1.
func CityIndex(info client.RequestInfo) int {
	if info.Lat == nil || info.Lon == nil {
		return -1
	}
	for i, c := range Cities() {
		if c.Lat == *info.Lat && c.Lon == *info.Lon {
			return i
		}
	}
	return -1
}

// CityBySlug is the index of the city with that slug, or -1.
func CityBySlug(slug string) int {
	for i, c := range Cities() {
		if c.Slug == slug {
			return i
		}
	}
	return -1
}

// SetCity moves the client's position to city i, keeping the ref.
func SetCity(c *client.Client, i int) {
	all := Cities()
	if i < 0 || i >= len(all) {
		return
	}
	info := c.RequestInfo()
	lat, lon := all[i].Lat, all[i].Lon
	info.Lat, info.Lon = &lat, &lon
	c.SetRequestInfo(info)
}

// PositionName names the client's position for headers.
func PositionName(c *client.Client) string {
	info := c.RequestInfo()
	if i := CityIndex(info); i >= 0 {
		return Cities()[i].Name
	}
	if info.Lat != nil && info.Lon != nil {
		return FormatLatLon(*info.Lat, *info.Lon)
	}
	return "no position"
}
