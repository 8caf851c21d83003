package actions

import (
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
)

// maxURL bounds the URLs handed to the desktop.
const maxURL = 4096

// webURL checks that raw is an absolute http or https URL with a host, so that nothing but
// a web page can be opened from an answer (no javascript:, file:, data: or custom schemes).
func webURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", errors.New("missing")
	}
	if len(raw) > maxURL {
		return "", fmt.Errorf("longer than %d bytes", maxURL)
	}
	for _, r := range raw {
		if r < 0x20 || r == 0x7f || r == ' ' {
			return "", errors.New("contains spaces or control characters")
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", errors.New("not a URL")
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		if scheme == "" {
			return "", errors.New("not an absolute URL")
		}
		return "", fmt.Errorf("scheme %q is not allowed (http and https only)", cleanText(u.Scheme, 20))
	}
	if u.Host == "" || u.Hostname() == "" {
		return "", errors.New("has no host")
	}
	if u.User != nil {
		return "", errors.New("carries credentials")
	}
	u.Scheme = scheme
	return u.String(), nil
}

// uriEscape percent-encodes everything but RFC 3986's unreserved characters: right for
// mailto:, sms: and query values alike (a space is %20, never "+", which mail clients keep).
func uriEscape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// crlf gives a body RFC 6068's line breaks (%0D%0A once escaped).
func crlf(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.ReplaceAll(s, "\n", "\r\n")
}

// emailAddress returns the bare address when to is one ("Ann <ann@x.org>" gives
// ann@x.org), and false when it is a name the user must fill in.
func emailAddress(to string) (string, bool) {
	a, err := mail.ParseAddress(strings.TrimSpace(to))
	if err != nil || strings.ContainsAny(a.Address, " \t\r\n") {
		return "", false
	}
	return a.Address, true
}

// mailtoURL builds an RFC 6068 mailto: URL; addr may be empty (the mail client asks).
func mailtoURL(addr, subject, body string) string {
	var b strings.Builder
	b.WriteString("mailto:")
	if addr != "" {
		local, domain, _ := strings.Cut(addr, "@")
		b.WriteString(uriEscape(local))
		b.WriteString("@")
		b.WriteString(uriEscape(domain))
	}
	sep := "?"
	if subject != "" {
		b.WriteString(sep + "subject=" + uriEscape(subject))
		sep = "&"
	}
	if body != "" {
		b.WriteString(sep + "body=" + uriEscape(crlf(body)))
	}
	return b.String()
}

// phoneNumber normalises a dialable number to "+" and digits; false when s is not one.
// Spaces, dots, dashes and parentheses are visual separators.
func phoneNumber(s string) (string, bool) {
	s = strings.TrimSpace(s)
	var b strings.Builder
	digits := 0
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
			digits++
		case r == '+' && i == 0:
			b.WriteRune(r)
		case r == ' ' || r == '-' || r == '.' || r == '(' || r == ')':
		default:
			return "", false
		}
	}
	if digits < 3 || digits > 20 {
		return "", false
	}
	return b.String(), true
}

// telURL is an RFC 3966 tel: URL of a normalised number.
func telURL(number string) string { return "tel:" + number }

// smsURL is an RFC 5724 sms: URL; number may be empty (the messaging app asks).
func smsURL(number, text string) string {
	u := "sms:" + number
	if text != "" {
		u += "?body=" + uriEscape(crlf(text))
	}
	return u
}

// mapURL shows a point on OpenStreetMap, or searches for the destination when the answer
// carries no coordinates.
func mapURL(destination string, lat, lon *float64) (string, error) {
	if lat == nil || lon == nil {
		if lat != nil || lon != nil {
			return "", errors.New("lat and lon come together")
		}
		if destination == "" {
			return "", errors.New("needs a destination or lat and lon")
		}
		return "https://www.openstreetmap.org/search?query=" + uriEscape(destination), nil
	}
	if math.IsNaN(*lat) || *lat < -90 || *lat > 90 {
		return "", errors.New("lat is outside -90..90")
	}
	if math.IsNaN(*lon) || *lon < -180 || *lon > 180 {
		return "", errors.New("lon is outside -180..180")
	}
	la := strconv.FormatFloat(*lat, 'f', 6, 64)
	lo := strconv.FormatFloat(*lon, 'f', 6, 64)
	return "https://www.openstreetmap.org/?mlat=" + la + "&mlon=" + lo + "#map=15/" + la + "/" + lo, nil
}
