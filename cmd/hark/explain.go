package main

import (
	"fmt"
	"io"

	"github.com/harkhq/hark/client"
)

func printExplanation(w io.Writer, x *client.Explanation) {
	fmt.Fprintf(w, "explain: language %s (%s), intent %s\n", x.Lang, x.LangFrom, x.Intent)
	if s := x.SeveralRequests(); s != "" {
		fmt.Fprintf(w, "  %s\n", s)
	}
	if x.Pattern != "" {
		fmt.Fprintf(w, "  pattern %q, cost %.2f\n", x.Pattern, x.Cost)
	}
	if x.Answers != "" {
		fmt.Fprintf(w, "  answers the question for %s\n", x.Answers)
	}
	for _, s := range x.Slots {
		if s.Words != "" {
			fmt.Fprintf(w, "  slot %s: %q = %s\n", s.Name, s.Words, s.Value)
		} else {
			fmt.Fprintf(w, "  slot %s = %s\n", s.Name, s.Value)
		}
	}
	for _, c := range x.Corrections {
		fmt.Fprintf(w, "  corrected %q to %q\n", c.Typed, c.Read)
	}
	// A spoken query: why a first answer was slow, when it was; each reading of the audio,
	// the chosen one marked.
	if x.SpeechWaitMs > 0 {
		fmt.Fprintf(w, "  waited %.1f s for the speech engines to start\n", float64(x.SpeechWaitMs)/1000)
	}
	if x.Speaker != nil {
		fmt.Fprintf(w, "  %s\n", x.Speaker)
	}
	if len(x.Hypotheses) > 0 {
		fmt.Fprintln(w, "  heard as:")
	}
	for _, h := range x.Hypotheses {
		mark := " "
		if h.Chosen {
			mark = "*"
		}
		fmt.Fprintf(w, "  %s %q (%s, score %+.2f): %s\n", mark, h.Text, h.Source, h.Score, h.Reason)
	}
}
