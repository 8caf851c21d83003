package actions

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// The handlers here change nothing: they describe what the desktop would be asked to do and
// hand back a Confirmation whose Do asks it, once the user says yes.

func (r *Registry) confirmURL(code, prompt, target string, details ...Detail) Outcome {
	opener := r.opener
	return Outcome{Code: code, Kind: NeedsConfirm, Summary: prompt, Confirm: &Confirmation{
		Prompt: prompt, Target: target, Details: details,
		Do: func(ctx context.Context) error { return opener.OpenURL(ctx, target) },
	}}
}

func (r *Registry) openURL(_ context.Context, code string, data json.RawMessage, _ int64) Outcome {
	var d urlData
	if err := decode(code, data, &d); err != nil {
		return failed(code, err)
	}
	u, err := webURL(d.URL)
	if err != nil {
		return failed(code, &DataError{Code: code, Field: "url", Problem: err.Error()})
	}
	return r.confirmURL(code, "Open "+cleanText(u, 200)+" in the browser?", u)
}

func (r *Registry) openBrowser(_ context.Context, code string, data json.RawMessage, _ int64) Outcome {
	var d struct{}
	if err := decode(code, data, &d); err != nil {
		return failed(code, err)
	}
	u, err := webURL(r.home)
	if err != nil {
		return failed(code, fmt.Errorf("home page %q: %w", cleanText(r.home, 200), err))
	}
	return r.confirmURL(code, "Open the web browser at "+cleanText(u, 200)+"?", u)
}

func (r *Registry) openApp(_ context.Context, code string, data json.RawMessage, _ int64) Outcome {
	var d appData
	if err := decode(code, data, &d); err != nil {
		return failed(code, err)
	}
	app := cleanText(d.App, maxName)
	if app == "" {
		return failed(code, &DataError{Code: code, Field: "app", Problem: "missing"})
	}
	if !appName(app) {
		return failed(code, &DataError{Code: code, Field: "app", Problem: "is not an application name (letters, digits, spaces and . _ + ' - only)"})
	}
	opener := r.opener
	prompt := "Open the app " + strconv.Quote(app) + "?"
	return Outcome{Code: code, Kind: NeedsConfirm, Summary: prompt, Confirm: &Confirmation{
		Prompt: prompt, Target: app,
		Do: func(ctx context.Context) error { return opener.OpenApp(ctx, app) },
	}}
}

func (r *Registry) navigate(_ context.Context, code string, data json.RawMessage, _ int64) Outcome {
	var d navigateData
	if err := decode(code, data, &d); err != nil {
		return failed(code, err)
	}
	dest := cleanText(d.Destination, maxLabel)
	u, err := mapURL(dest, d.Lat, d.Lon)
	if err != nil {
		return failed(code, &DataError{Code: code, Problem: err.Error()})
	}
	details := []Detail{}
	if dest != "" {
		details = append(details, Detail{"Destination", dest})
	} else {
		dest = "the destination"
	}
	if d.Lat != nil {
		details = append(details, Detail{"Coordinates", fmt.Sprintf("%.5f, %.5f", *d.Lat, *d.Lon)})
	}
	return r.confirmURL(code, "Show "+dest+" on the map?", u, details...)
}

func (r *Registry) makeCall(_ context.Context, code string, data json.RawMessage, _ int64) Outcome {
	var d callData
	if err := decode(code, data, &d); err != nil {
		return failed(code, err)
	}
	contact := cleanText(d.Contact, maxName)
	if strings.TrimSpace(d.Number) == "" {
		if contact == "" {
			return failed(code, &DataError{Code: code, Problem: "needs a number or a contact"})
		}
		// A name alone may still be a number the recogniser kept as the contact.
		if n, ok := phoneNumber(contact); ok {
			return r.callDraft(code, "", n)
		}
		return failed(code, fmt.Errorf("can't call %s: no phone number (hark has no address book)", contact))
	}
	n, ok := phoneNumber(d.Number)
	if !ok {
		return failed(code, &DataError{Code: code, Field: "number", Problem: "is not a phone number"})
	}
	return r.callDraft(code, contact, n)
}

func (r *Registry) callDraft(code, contact, number string) Outcome {
	who := number
	details := []Detail{}
	if contact != "" {
		who = contact + " (" + number + ")"
		details = append(details, Detail{"Contact", contact})
	}
	details = append(details, Detail{"Number", number})
	return r.confirmURL(code, "Call "+who+"?", telURL(number), details...)
}

func (r *Registry) sendSMS(_ context.Context, code string, data json.RawMessage, _ int64) Outcome {
	var d smsData
	if err := decode(code, data, &d); err != nil {
		return failed(code, err)
	}
	contact := cleanText(d.Contact, maxName)
	if contact == "" {
		return failed(code, &DataError{Code: code, Field: "contact", Problem: "missing"})
	}
	text := cleanMultiline(d.Text, maxBody)
	if strings.TrimSpace(text) == "" {
		return failed(code, &DataError{Code: code, Field: "text", Problem: "missing"})
	}
	number, isNumber := phoneNumber(contact)
	to := contact
	if !isNumber {
		number = ""
		to = contact + " (no number: your messaging app asks for it)"
	}
	return r.confirmURL(code, "Send this text message to "+contact+"?", smsURL(number, text),
		Detail{"To", to}, Detail{"Message", cleanText(text, maxBody)})
}

func (r *Registry) sendEmail(_ context.Context, code string, data json.RawMessage, _ int64) Outcome {
	var d emailData
	if err := decode(code, data, &d); err != nil {
		return failed(code, err)
	}
	to := cleanText(d.To, maxLabel)
	if to == "" {
		return failed(code, &DataError{Code: code, Field: "to", Problem: "missing"})
	}
	subject := cleanText(d.Subject, maxLabel)
	body := cleanMultiline(d.Body, maxBody)
	addr, ok := emailAddress(to)
	shownTo := to
	if !ok {
		addr = ""
		shownTo = to + " (no address: your mail client asks for it)"
	}
	return r.confirmURL(code, "Open this e-mail draft to "+to+" in your mail client?", mailtoURL(addr, subject, body),
		Detail{"To", shownTo}, Detail{"Subject", subject}, Detail{"Body", cleanText(body, maxBody)})
}

// cleanMultiline keeps the line breaks of a message body but no other control characters,
// cut at max runes.
func cleanMultiline(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n >= max {
			break
		}
		if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)) {
			continue
		}
		b.WriteRune(r)
		n++
	}
	return strings.TrimSpace(b.String())
}

// appName accepts what application names are made of ("Notepad++", "VLC media player",
// "org.gnome.Calculator") and nothing a shell or cmd.exe would read as syntax, nor a path or
// an option.
func appName(s string) bool {
	if s == "" || strings.HasPrefix(s, "-") || strings.HasPrefix(s, ".") {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(" ._+'-", r) {
			return false
		}
	}
	return true
}
