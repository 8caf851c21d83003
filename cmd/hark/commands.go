package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/sys/unix"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/ui"
)

// runCommand runs one subcommand against the configured platform. The
// embedded platform logs to the state directory so stdout stays the
// command's answer.
func runCommand(ctx context.Context, cfg config, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	logger, closeLog := commandLog(cfg)
	defer closeLog()
	name, rest := args[0], args[1:]
	switch name {
	case "say", "ask", "login", "register", "logout", "storage", "recomm":
	default:
		fmt.Fprintf(stderr, "hark: unknown command %q (hark -h lists them)\n", name)
		return exitError{2}
	}
	p, err := connect(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer p.Close()
	switch name {
	case "say":
		return cmdSay(ctx, p, rest, stdout, stderr)
	case "ask":
		return cmdAsk(ctx, p, rest, stdout, stderr)
	case "login", "register":
		return cmdSignIn(ctx, p, name, rest, stdin, stdout, stderr)
	case "logout":
		err := p.Client.Auth.Logout(ctx)
		if cerr := p.Sessions.Clear(); err == nil || client.IsCode(err, "TokenExpired") {
			err = cerr
		}
		if err == nil {
			fmt.Fprintln(stdout, "logged out")
		}
		return err
	case "recomm":
		return cmdRecomm(ctx, p, rest, stdout, stderr)
	default:
		return cmdStorage(ctx, p, rest, stdout, stderr)
	}
}

func cmdSay(ctx context.Context, p *platform, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("say", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the whole answer as JSON")
	ref := fs.Int64("ref", 0, "continue the conversation with this ref")
	if err := fs.Parse(args); err != nil {
		return exitError{2}
	}
	q := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if q == "" {
		fmt.Fprintln(stderr, "usage: hark say [--json] [--ref N] TEXT")
		return exitError{2}
	}
	if p.Client.Token() == "" {
		return errors.New("not signed in: run hark login, hark register, or open hark once")
	}
	resp, err := p.Client.Dialogue.Text(ctx, q, *ref)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(stdout, resp)
	}
	return printAnswer(stdout, resp)
}

func printJSON(w io.Writer, resp *client.DialogueResponse) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(resp)
}

// printAnswer writes an answer for scripts: its text (from html where
// present), one "action CODE DATA" line per next action, and the ref that
// continues the conversation.
func printAnswer(w io.Writer, resp *client.DialogueResponse) error {
	answer := resp.Responses.Text
	if resp.Responses.HTML != "" {
		answer = ui.PlainText(resp.Responses.HTML)
	}
	fmt.Fprintln(w, answer)
	for _, a := range resp.NextActions {
		data := strings.TrimSpace(string(a.Data))
		if data == "" || data == "null" {
			fmt.Fprintf(w, "action %s\n", a.Action)
		} else {
			fmt.Fprintf(w, "action %s %s\n", a.Action, data)
		}
	}
	if resp.Context.Ref != 0 {
		fmt.Fprintf(w, "ref %d\n", resp.Context.Ref)
	}
	return nil
}

func cmdSignIn(ctx context.Context, p *platform, name string, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	email := fs.String("email", "", "e-mail address")
	display := fs.String("name", "", "display name (register)")
	if err := fs.Parse(args); err != nil {
		return exitError{2}
	}
	in := bufio.NewReader(stdin)
	if *email == "" {
		fmt.Fprint(stderr, "e-mail: ")
		line, _ := in.ReadString('\n')
		*email = strings.TrimSpace(line)
	}
	password := os.Getenv("HARK_PASSWORD")
	if password == "" {
		var err error
		if password, err = readPassword(in, stderr); err != nil {
			return err
		}
	}
	if *email == "" || password == "" {
		return errors.New("an e-mail and a password are needed")
	}
	var tok client.Token
	var err error
	if name == "register" {
		tok, err = p.Client.Auth.Register(ctx, *email, password, *display, "hark-cli")
	} else {
		tok, err = p.Client.Auth.Login(ctx, *email, password, "hark-cli")
	}
	if err != nil {
		return err
	}
	sess := ui.Session{Token: tok.Token, Email: *email, Name: *display, Expires: tok.Expires}
	if tok.Username != "" && sess.Name == "" {
		sess.Name = tok.Username
	}
	if err := p.Sessions.Save(sess); err != nil {
		return fmt.Errorf("signed in, but could not keep the session in %s: %w", p.Secrets.Where(), err)
	}
	fmt.Fprintf(stdout, "signed in as %s (session kept in %s)\n", *email, p.Secrets.Where())
	return nil
}

// readPassword reads a line with echo off when stdin is a terminal.
func readPassword(in *bufio.Reader, prompt io.Writer) (string, error) {
	fmt.Fprint(prompt, "password: ")
	fd := int(os.Stdin.Fd())
	if old, err := unix.IoctlGetTermios(fd, unix.TCGETS); err == nil {
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

// splitRemote reads FOLDER/NAME (a name alone is at the top level).
func splitRemote(s string) (folder, name string) {
	s = strings.Trim(s, "/")
	if i := strings.IndexByte(s, '/'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return "", s
}

func cmdStorage(ctx context.Context, p *platform, args []string, stdout, stderr io.Writer) error {
	st := p.Client.Storage
	usage := func() error {
		fmt.Fprintln(stderr, "usage: hark storage ls [FOLDER] | put LOCAL [FOLDER[/NAME]] | get FOLDER/NAME [LOCAL|-] | rm FOLDER/NAME... | mkdir FOLDER | rmdir FOLDER | du | clear [--yes]")
		return exitError{2}
	}
	if len(args) == 0 {
		return usage()
	}
	op, rest := args[0], args[1:]
	switch op {
	case "ls":
		if len(rest) > 1 {
			return usage()
		}
		folder := ""
		if len(rest) == 1 {
			folder = strings.Trim(rest[0], "/")
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
		defer tw.Flush()
		if folder == "" {
			folders, err := st.Folders(ctx)
			if err != nil {
				return err
			}
			for _, f := range folders {
				fmt.Fprintf(tw, "-\t-\t%s/\t\n", f)
			}
		}
		files, err := st.List(ctx, folder, client.ListOptions{})
		if err != nil {
			return err
		}
		for _, f := range files {
			fmt.Fprintf(tw, "%d\t%s\t%s\t\n", f.Size, time.UnixMilli(f.LastModified).Format("2006-01-02 15:04"), f.Name)
		}
		return nil
	case "put":
		if len(rest) < 1 || len(rest) > 2 {
			return usage()
		}
		local := rest[0]
		f, err := os.Open(local)
		if err != nil {
			return err
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			return err
		}
		if info.IsDir() {
			return fmt.Errorf("%s is a directory; give a file", local)
		}
		folder, name := "", filepath.Base(local)
		if len(rest) == 2 {
			target := strings.Trim(rest[1], "/")
			if strings.Contains(target, "/") {
				folder, name = splitRemote(target)
			} else {
				folder = target
			}
		}
		res, err := st.Upload(ctx, folder, name, f, info.Size(), nil)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "uploaded %s\n", path.Join(res.Folder, res.File))
		return nil
	case "get":
		if len(rest) < 1 || len(rest) > 2 {
			return usage()
		}
		folder, name := splitRemote(rest[0])
		if len(rest) == 2 && rest[1] == "-" {
			_, err := st.Download(ctx, folder, name, stdout, nil)
			return err
		}
		local := filepath.Base(name)
		if len(rest) == 2 {
			local = rest[1]
		}
		tmp, err := os.CreateTemp(filepath.Dir(local), ".hark-download-*")
		if err != nil {
			return err
		}
		n, err := st.Download(ctx, folder, name, tmp, nil)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), local)
		}
		if err != nil {
			os.Remove(tmp.Name())
			return err
		}
		fmt.Fprintf(stdout, "downloaded %s (%d bytes) to %s\n", rest[0], n, local)
		return nil
	case "rm":
		if len(rest) == 0 {
			return usage()
		}
		for _, r := range rest {
			folder, name := splitRemote(r)
			if err := st.Delete(ctx, folder, name); err != nil {
				return fmt.Errorf("rm %s: %w", r, err)
			}
		}
		return nil
	case "mkdir", "rmdir":
		if len(rest) != 1 {
			return usage()
		}
		if op == "mkdir" {
			return st.CreateFolder(ctx, strings.Trim(rest[0], "/"))
		}
		return st.DeleteFolder(ctx, strings.Trim(rest[0], "/"))
	case "du":
		n, err := st.TotalSize(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%d\n", n)
		return nil
	case "clear":
		if len(rest) != 1 || rest[0] != "--yes" {
			fmt.Fprintln(stderr, "hark storage clear deletes every file and folder of the workspace; add --yes to do it")
			return exitError{2}
		}
		tok, err := st.RequestClear(ctx)
		if err != nil {
			return err
		}
		res, err := st.Clear(ctx, tok.Token)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "cleared %d files and %d folders\n", res.Files, res.Folders)
		return nil
	}
	return usage()
}
