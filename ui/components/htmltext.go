package components

import (
	"github.com/harkhq/hark/ui/common"
	"html"
	"strings"
)

// htmlText renders the answer's small HTML (paragraphs, breaks, lists,
// emphasis) as plain text lines; unknown tags are dropped, entities decoded.
func HTMLText(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			b.WriteString(s[i:]) // a lone "<" is text
			break
		}
		tag := strings.ToLower(strings.Trim(s[i+1:i+j], "/ "))
		if k := strings.IndexAny(tag, " \t\n"); k >= 0 {
			tag = tag[:k]
		}
		closing := strings.HasPrefix(s[i+1:], "/")
		switch tag {
		case "br":
			b.WriteString("\n")
		case "p", "div", "h1", "h2", "h3", "h4", "ul", "ol", "tr", "table":
			if closing || !strings.HasSuffix(b.String(), "\n") && b.Len() > 0 {
				b.WriteString("\n")
			}
		case "li":
			if !closing {
				if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
					b.WriteString("\n")
				}
				b.WriteString("• ")
			}
		case "td", "th":
			if closing {
				b.WriteString("  ")
			}
		}
		s = s[i+j+1:]
	}
	lines := strings.Split(html.UnescapeString(b.String()), "\n")
	out := lines[:0]
	for _, l := range lines {
		l = strings.Join(strings.Fields(common.Clean(l)), " ")
		if l == "" && (len(out) == 0 || out[len(out)-1] == "") {
			continue
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
