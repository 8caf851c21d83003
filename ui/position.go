package ui

import "github.com/harkhq/hark/client"

// cities are the platform's sandbox cities (their centres), offered as
// the position sent with item and dialogue requests: a terminal has no
// GPS, so the user picks where they are.
var cities = []struct {
	slug, name string
	lat, lon   float64
}{
	{"san-francisco", "San Francisco", 37.7749, -122.4194},
	{"new-york", "New York", 40.7128, -74.0060},
	{"madrid", "Madrid", 40.4168, -3.7038},
	{"london", "London", 51.5074, -0.1278},
	{"singapore", "Singapore", 1.3521, 103.8198},
}

// cityIndex is the city at the client's position, or -1.
func cityIndex(info client.RequestInfo) int {
	if info.Lat == nil || info.Lon == nil {
		return -1
	}
	for i, c := range cities {
		if c.lat == *info.Lat && c.lon == *info.Lon {
			return i
		}
	}
	return -1
}

// setCity moves the client's position to city i, keeping the ref.
func setCity(c *client.Client, i int) {
	info := c.RequestInfo()
	lat, lon := cities[i].lat, cities[i].lon
	info.Lat, info.Lon = &lat, &lon
	c.SetRequestInfo(info)
}

// positionName names the client's position for headers.
func positionName(c *client.Client) string {
	info := c.RequestInfo()
	if i := cityIndex(info); i >= 0 {
		return cities[i].name
	}
	if info.Lat != nil && info.Lon != nil {
		return formatLatLon(*info.Lat, *info.Lon)
	}
	return "no position"
}
