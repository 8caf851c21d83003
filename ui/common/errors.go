package common

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/harkhq/hark/client"
)

// SessionExpired tells whether err means the token is no longer valid.
func SessionExpired(err error) bool {
	var api *client.APIError
	return errors.As(err, &api) && api.Status == 401 && api.Code == "TokenExpired"
}

// Describe turns an error into one sentence for a toast or a status line:
// the platform's own description, or what went wrong on the way there
// with a hint. Status codes, API paths and Go's transport wording go to
// the log, not to the screen.
func Describe(err error) string {
	if err == nil {
		return ""
	}
	slog.Info("error shown", "err", err.Error())
	var api *client.APIError
	if errors.As(err, &api) {
		s := OneLine(api.Description)
		if s == "" {
			s = codeSentence(api.Code)
		}
		switch {
		case api.Status == 429 && api.RetryAfter > 0:
			s += fmt.Sprintf(" (try again in %s)", api.RetryAfter.Round(time.Second))
		case api.Status == 429:
			s += " (wait a moment and try again)"
		case api.Status >= 500:
			s = "the platform failed: " + s + " (details in its log)"
		}
		return s
	}
	switch {
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		return "the platform did not answer in time: is it overloaded or unreachable?"
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		host := uerr.URL
		if u, perr := url.Parse(uerr.URL); perr == nil && u.Host != "" {
			host = u.Host
		}
		var nerr net.Error
		switch {
		case errors.Is(err, syscall.ECONNREFUSED), isDial(err):
			return "hark cannot reach the platform at " + host + ": is harkd running?"
		case errors.As(err, &nerr) && nerr.Timeout():
			return "the platform at " + host + " did not answer in time: is the network up?"
		}
		return "hark lost the connection to the platform at " + host + " (details in the log)"
	}
	if strings.Contains(err.Error(), "malformed JSON") {
		return "the platform answered something hark does not understand (details in the log): is the address right?"
	}
	return OneLine(err.Error())
}

func isDial(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// codeSentence words a bare error code ("EntityNotFound") as text.
func codeSentence(code string) string {
	if code == "" {
		return "the platform refused without saying why"
	}
	var b strings.Builder
	for i, r := range code {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return strings.ToLower(b.String())
}
