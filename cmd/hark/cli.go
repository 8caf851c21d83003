package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"golang.org/x/sys/unix"
)

// The conventions every subcommand keeps, as gh does: help asked for goes
// to stdout with exit 0; a usage mistake is one line on stderr, a pointer
// to --help, and exit 2; data goes to stdout, diagnostics to stderr.

// errHelpShown ends a command whose help was asked for: exit 0.
var errHelpShown = errors.New("help shown")

// commandFlags is the flag set of one (sub)command, e.g. "storage ls".
// Its help lists only its own flags.
type commandFlags struct {
	*flag.FlagSet
	path     string // "storage ls"
	synopsis string // what follows the path in the usage line: "[FOLDER]"
	about    string // one or more sentences
	stdout   io.Writer
	stderr   io.Writer
}

// newCommandFlags starts the flag set of the command path ("storage ls");
// synopsis is its arguments as the usage line shows them, about what it
// does. Register the flags on it, then call parse.
func newCommandFlags(path, synopsis, about string, stdout, stderr io.Writer) *commandFlags {
	fs := flag.NewFlagSet("hark "+path, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parse reports errors itself, in one line
	fs.Usage = func() {}
	return &commandFlags{FlagSet: fs, path: path, synopsis: synopsis, about: about, stdout: stdout, stderr: stderr}
}

// parse reads flags anywhere among the arguments ("ls docs --json" as well
// as "ls --json docs"; "--" ends the flags) and returns the others. -h or
// --help prints the help to stdout and returns errHelpShown; a bad flag
// prints one line to stderr and returns exit status 2.
func (f *commandFlags) parse(args []string) ([]string, error) {
	return f.parseAll(args, true)
}

// parseLeading reads flags only before the first other argument, for
// commands whose arguments are free text ("hark say turn it down -5").
func (f *commandFlags) parseLeading(args []string) ([]string, error) {
	return f.parseAll(args, false)
}

func (f *commandFlags) parseAll(args []string, intersperse bool) ([]string, error) {
	var rest []string
	for {
		if err := f.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				f.help(f.stdout)
				return nil, errHelpShown
			}
			msg := flagError(err)
			if name, ok := strings.CutPrefix(msg, "unknown flag --"); ok && isGlobalFlag(name) {
				msg = fmt.Sprintf("--%s is a global flag: put it before the command (hark --%s ... %s)", name, name, f.path)
			}
			return nil, f.usageError("%s", msg)
		}
		left := f.Args()
		used := len(args) - len(left)
		if !intersperse || len(left) == 0 || (used > 0 && args[used-1] == "--") {
			return append(rest, left...), nil
		}
		rest = append(rest, left[0])
		args = left[1:]
	}
}

// isGlobalFlag tells whether name is one of hark's own flags (--base-url ...).
func isGlobalFlag(name string) bool {
	fs := newFlagSet()
	configFlags(fs)
	return fs.Lookup(name) != nil
}

// flagError rewords the flag package's errors with the dashes people type.
func flagError(err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag --" + strings.TrimPrefix(name, "-")
	}
	msg = strings.Replace(msg, "for flag -", "for flag --", 1)
	return strings.Replace(msg, "needs an argument: -", "needs a value: --", 1)
}

// usageError reports a usage mistake on stderr and returns exit status 2.
func (f *commandFlags) usageError(format string, args ...any) error {
	fmt.Fprintf(f.stderr, "hark %s: %s\n", f.path, fmt.Sprintf(format, args...))
	fmt.Fprintf(f.stderr, "usage: hark %s\nRun 'hark %s --help' for more.\n", strings.TrimSpace(f.path+" "+f.synopsis), f.path)
	return exitError{2}
}

func (f *commandFlags) help(w io.Writer) {
	fmt.Fprintf(w, "usage: hark %s\n\n%s\n", strings.TrimSpace(f.path+" "+f.synopsis), wrap(f.about, 78))
	n := 0
	f.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w, "\nflags:")
		printFlags(w, f.FlagSet)
	}
}

// printFlags lists fs's flags the way people type them (--name VALUE),
// with their defaults when those say something.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	defer tw.Flush()
	fs.VisitAll(func(fl *flag.Flag) {
		kind, usage := flag.UnquoteUsage(fl)
		name := "--" + fl.Name
		if kind != "" {
			name += " " + strings.ToUpper(kind)
		}
		if def := fl.DefValue; def != "" && def != "false" && def != "0" {
			usage += " (default " + def + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\n", name, usage)
	})
	fmt.Fprintf(tw, "  --help\tthis help\n")
}

// wrap breaks text into lines of at most width columns, between words;
// blank lines (paragraphs) are kept.
func wrap(text string, width int) string {
	var out []string
	for _, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		var b strings.Builder
		col := 0
		for _, word := range strings.Fields(para) {
			if col > 0 && col+1+len(word) > width {
				b.WriteByte('\n')
				col = 0
			} else if col > 0 {
				b.WriteByte(' ')
				col++
			}
			b.WriteString(word)
			col += len(word)
		}
		out = append(out, b.String())
	}
	return strings.Join(out, "\n\n")
}

// writeList prints the list items: with asJSON a JSON array on stdout
// (`[]` when empty, so scripts always get JSON); else one row per item
// through row, in aligned columns, or, for no items, the sentence empty on
// stderr (stdout stays empty, so `| wc -l` says 0).
func writeList[T any](stdout, stderr io.Writer, asJSON bool, items []T, empty string, row func(w io.Writer, item T)) error {
	if asJSON {
		if items == nil {
			items = []T{}
		}
		return writeJSON(stdout, items)
	}
	if len(items) == 0 {
		fmt.Fprintln(stderr, empty)
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	for _, it := range items {
		row(tw, it)
	}
	return tw.Flush()
}

// writeJSON prints v as indented JSON, one value per call.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// humanBytes is a byte count the way people read it: 13 B, 32.2 KiB, 1.5 GiB.
func humanBytes(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, unit := float64(n)/1024, 0
	for v >= 1024 && unit < 4 {
		v /= 1024
		unit++
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + []string{"KiB", "MiB", "GiB", "TiB", "PiB"}[unit]
}

// sizeText is n for people, or in bytes when asked (--bytes).
func sizeText(n int64, bytes bool) string {
	if bytes {
		return strconv.FormatInt(n, 10)
	}
	return humanBytes(n)
}

// isTerminal tells whether w is a terminal (progress is drawn only there).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
