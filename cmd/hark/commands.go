package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/ui"
)

func cmdSay(e *cliEnv, args []string) error {
	f := e.flags("say", "[--json] [--explain] [--ref N] TEXT", `Sends TEXT to the assistant and prints its answer on stdout. The next
actions ("action CODE DATA") and the ref that continues the conversation go to stderr; --json prints
the whole answer as JSON instead. Flags go before TEXT.

A question ("set an alarm" → "For what time?") is answered with --ref: hark say --ref N "seven am".`)
	asJSON := f.Bool("json", false, "print the whole answer as JSON")
	ref := f.Int64("ref", 0, "continue the conversation of the answer with ref `N`")
	explain := f.Bool("explain", false, "also show how the query was read: language, intent, pattern, slots, corrections")
	rest, err := f.parseLeading(args)
	if err != nil {
		return err
	}
	q := strings.TrimSpace(strings.Join(rest, " "))
	if q == "" {
		return f.usageError("give the TEXT to say")
	}
	p, err := e.platform()
	if err != nil {
		return err
	}
	if err := needSession(p); err != nil {
		return err
	}
	if *explain {
		resp, err := p.Client.Dialogue.Text(e.ctx, q, *ref, client.Explain())
		if err != nil {
			return err
		}
		if resp.Explain == nil {
			return errors.New("the server sent no explanation (an older harkd?)")
		}
		if *asJSON {
			return writeJSON(e.stdout, resp)
		}
		if err := printAnswer(e.stdout, e.stderr, resp); err != nil {
			return err
		}
		printExplanation(e.stdout, resp.Explain)
		return nil
	}
	resp, err := p.Client.Dialogue.Text(e.ctx, q, *ref)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.stdout, resp)
	}
	return printAnswer(e.stdout, e.stderr, resp)
}

// needSession explains what to do when no one is signed in.
func needSession(p *platform) error {
	if p.Client.Token() != "" {
		return nil
	}
	return errors.New("not signed in: run hark register --email ADDRESS (or hark login), or open hark once and continue anonymously")
}

// printAnswer writes an answer for scripts: its text (from html where
// present) on stdout; one "action CODE DATA" line per next action and the
// ref that continues the conversation on stderr.
func printAnswer(stdout, stderr io.Writer, resp *client.DialogueResponse) error {
	answer := resp.Responses.Text
	if resp.Responses.HTML != "" {
		answer = ui.PlainText(resp.Responses.HTML)
	}
	fmt.Fprintln(stdout, answer)
	for _, a := range resp.NextActions {
		data := strings.TrimSpace(string(a.Data))
		if data == "" || data == "null" {
			fmt.Fprintf(stderr, "action %s\n", a.Action)
		} else {
			fmt.Fprintf(stderr, "action %s %s\n", a.Action, data)
		}
	}
	if resp.Context.Ref != 0 {
		fmt.Fprintf(stderr, "ref %d\n", resp.Context.Ref)
	}
	return nil
}

func signIn(name string) func(e *cliEnv, args []string) error {
	synopsis, about := "[--email ADDRESS]", `Logs in and remembers the session for the console and the other commands. The
password comes from HARK_PASSWORD, else it is asked on the terminal.`
	if name == "register" {
		synopsis, about = "[--email ADDRESS] [--name NAME]", `Creates an account on the platform and remembers its
session. The password comes from HARK_PASSWORD, else it is asked on the terminal.`
	}
	return func(e *cliEnv, args []string) error {
		f := e.flags(name, synopsis, about)
		email := f.String("email", "", "e-mail `ADDRESS` (asked when missing)")
		var display *string
		if name == "register" {
			display = f.String("name", "", "display `NAME`")
		} else {
			display = new(string)
		}
		if rest, err := f.parse(args); err != nil {
			return err
		} else if len(rest) > 0 {
			return f.usageError("unexpected argument %q (the e-mail goes with --email)", rest[0])
		}
		p, err := e.platform()
		if err != nil {
			return err
		}
		return cmdSignIn(e.ctx, p, name, *email, *display, e.stdin, e.stderr)
	}
}

func cmdSignIn(ctx context.Context, p *platform, name, email, display string, stdin io.Reader, stderr io.Writer) error {
	in := bufio.NewReader(stdin)
	if email == "" {
		if stdinIsTerminal() {
			fmt.Fprint(stderr, "e-mail: ")
		}
		line, _ := in.ReadString('\n')
		email = strings.TrimSpace(line)
	}
	password := os.Getenv("HARK_PASSWORD")
	if password == "" && email != "" {
		var err error
		if password, err = readPassword(in, stderr); err != nil {
			return err
		}
	}
	if email == "" || password == "" {
		return errors.New("an e-mail and a password are needed (--email, and HARK_PASSWORD or the terminal)")
	}
	var tok client.Token
	var err error
	if name == "register" {
		tok, err = p.Client.Auth.Register(ctx, email, password, display, "hark-cli")
	} else {
		tok, err = p.Client.Auth.Login(ctx, email, password, "hark-cli")
	}
	if err != nil {
		return err
	}
	sess := ui.Session{Token: tok.Token, Email: email, Name: display, Expires: tok.Expires, Username: tok.Username}
	if tok.Username != "" && sess.Name == "" {
		sess.Name = tok.Username
	}
	if err := p.Sessions.Save(sess); err != nil {
		return fmt.Errorf("signed in, but could not keep the session in %s: %w", p.Secrets.Where(), err)
	}
	fmt.Fprintf(stderr, "signed in as %s (session kept in %s)\n", email, p.Secrets.Where())
	return nil
}

func cmdLogout(e *cliEnv, args []string) error {
	f := e.flags("logout", "", "Ends the remembered session on the platform and forgets it here.")
	if rest, err := f.parse(args); err != nil {
		return err
	} else if len(rest) > 0 {
		return f.usageError("takes no arguments")
	}
	p, err := e.platform()
	if err != nil {
		return err
	}
	if p.Client.Token() == "" {
		fmt.Fprintln(e.stderr, "not signed in: nothing to log out of")
		return nil
	}
	err = p.Client.Auth.Logout(e.ctx)
	if cerr := p.Sessions.Clear(); err == nil || client.IsCode(err, "TokenExpired") {
		err = cerr
	}
	if err == nil {
		fmt.Fprintln(e.stderr, "logged out")
	}
	return err
}

// stdinIsTerminal tells whether prompts are read by someone.
func stdinIsTerminal() bool { return isTerminal(os.Stdin) }

// readPassword reads a line, prompting with echo off when stdin is a
// terminal.
func readPassword(in *bufio.Reader, prompt io.Writer) (string, error) {
	fd := int(os.Stdin.Fd())
	if old, err := unix.IoctlGetTermios(fd, unix.TCGETS); err == nil {
		fmt.Fprint(prompt, "password: ")
		quiet := *old
		quiet.Lflag &^= unix.ECHO
		if err := unix.IoctlSetTermios(fd, unix.TCSETS, &quiet); err == nil {
			defer func() {
				unix.IoctlSetTermios(fd, unix.TCSETS, old)
				fmt.Fprintln(prompt)
			}()
		}
	}
	line, err := in.ReadString('\n')
	if err != nil && line == "" {
		return "", fmt.Errorf("read password: %w", err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}
