package main

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// cliCommand is one entry of hark's command tree: a command that runs, or
// a group of subcommands (storage, recomm).
type cliCommand struct {
	name    string
	summary string
	subs    []*cliCommand
	// run takes the arguments after the name. A group without run
	// dispatches to its subcommands.
	run func(e *cliEnv, args []string) error
}

// commands is the tree; init fills it, as help refers back to it.
var commands []*cliCommand

func init() {
	commands = []*cliCommand{
		{name: "say", summary: "one typed turn with the assistant", run: cmdSay},
		{name: "ask", summary: "one spoken turn from a WAV file", run: cmdAsk},
		{name: "login", summary: "log in with e-mail and password", run: signIn("login")},
		{name: "register", summary: "create an account", run: signIn("register")},
		{name: "logout", summary: "end the remembered session", run: cmdLogout},
		{name: "storage", summary: "the workspace's files", subs: storageCommands()},
		{name: "recomm", summary: "the recommendation service: catalogs, imports, training, recommendations", run: cmdRecomm},
		{name: "flow", summary: "record and run spoken conversations as YAML files (hark flow record/run --help)", run: cmdFlow},
		{name: "mic", summary: "list the microphones, or choose one", run: cmdMic},
		{name: "version", summary: "print the version", run: cmdVersion},
		{name: "help", summary: "help about a command", run: cmdHelp},
	}
}

// exec runs c, or for a group its subcommand.
func (c *cliCommand) exec(e *cliEnv, args []string) error {
	if c.run == nil {
		return runGroup(e, c, args)
	}
	return c.run(e, args)
}

func findCommand(list []*cliCommand, name string) *cliCommand {
	for _, c := range list {
		if c.name == name {
			return c
		}
	}
	return nil
}

func listCommands(w io.Writer, list []*cliCommand) {
	tw := tabwriter.NewWriter(w, 0, 4, 3, ' ', 0)
	for _, c := range list {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
}

func isHelpFlag(s string) bool { return s == "-h" || s == "--help" || s == "-help" }

// runGroup dispatches to the subcommand args[0] of g; with none, or with
// --help, it prints g's help.
func runGroup(e *cliEnv, g *cliCommand, args []string) error {
	if len(args) == 0 || isHelpFlag(args[0]) {
		groupHelp(e.stdout, g)
		return errHelpShown
	}
	sub := findCommand(g.subs, args[0])
	if sub == nil {
		fmt.Fprintf(e.stderr, "hark %s: unknown command %q\nRun 'hark %s --help' for its commands.\n", g.name, args[0], g.name)
		return exitError{2}
	}
	return sub.exec(e, args[1:])
}

func groupHelp(w io.Writer, g *cliCommand) {
	fmt.Fprintf(w, "hark %s: %s\n\nusage: hark %s COMMAND [ARGS]\n\ncommands:\n", g.name, g.summary, g.name)
	listCommands(w, g.subs)
	fmt.Fprintf(w, "\nRun 'hark %s COMMAND --help' for a command's arguments and flags.\n", g.name)
}

// cmdHelp is `hark help [COMMAND [SUBCOMMAND]]`: the same text as --help.
func cmdHelp(e *cliEnv, args []string) error {
	f := e.flags("help", "[COMMAND [SUBCOMMAND]]", "Shows what hark does and its commands, or the arguments and flags of one command: the same text as hark COMMAND --help.")
	args, err := f.parseLeading(args)
	if err != nil {
		return err
	}
	if len(args) == 0 {
		printUsage(e.stdout, e.globals)
		return errHelpShown
	}
	c := findCommand(commands, args[0])
	if c == nil {
		fmt.Fprintf(e.stderr, "hark help: unknown command %q\nRun 'hark --help' for the list of commands.\n", args[0])
		return exitError{2}
	}
	return c.exec(e, append(args[1:], "--help"))
}

func cmdVersion(e *cliEnv, args []string) error {
	f := e.flags("version", "", "Prints the version of hark and, when the build recorded it, the revision it was built from.")
	if rest, err := f.parse(args); err != nil {
		return err
	} else if len(rest) > 0 {
		return f.usageError("takes no arguments")
	}
	fmt.Fprintln(e.stdout, "hark version", buildVersion())
	return nil
}

// storageCommands is the storage group.
func storageCommands() []*cliCommand {
	return []*cliCommand{
		{name: "ls", summary: "list the folders, or the files of a folder", run: storageLs},
		{name: "put", summary: "upload a file", run: storagePut},
		{name: "get", summary: "download a file", run: storageGet},
		{name: "rm", summary: "delete files", run: storageRm},
		{name: "mkdir", summary: "create a folder", run: storageFolder("mkdir")},
		{name: "rmdir", summary: "delete an empty folder", run: storageFolder("rmdir")},
		{name: "du", summary: "total size of the workspace's files", run: storageDu},
		{name: "clear", summary: "delete every file and folder", run: storageClear},
	}
}
