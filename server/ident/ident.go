// Package ident holds the identifier rule of the recommendation document,
// which DECISIONS §3 also applies to anonymous users' externalId: an id is
// non-empty, at most a given length, valid UTF-8 without control
// characters, and free of \ $ . / < > : " # % & * ? | { }.
package ident

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

const forbidden = `\$./<>:"#%&*?|{}`

// Check returns nil when id obeys the rule with at most max bytes, else an
// error naming what is wrong, prefixed with what (e.g. "userId").
func Check(what, id string, max int) error {
	switch {
	case id == "":
		return fmt.Errorf("%s is empty", what)
	case len(id) > max:
		return fmt.Errorf("%s is longer than %d bytes", what, max)
	case !utf8.ValidString(id):
		return fmt.Errorf("%s is not valid UTF-8", what)
	}
	if i := strings.IndexAny(id, forbidden); i >= 0 {
		return fmt.Errorf("%s %q contains %q, which ids may not hold (%s)", what, id, id[i:i+1], forbidden)
	}
	for _, r := range id {
		if unicode.IsControl(r) {
			return fmt.Errorf("%s contains a control character", what)
		}
	}
	return nil
}
