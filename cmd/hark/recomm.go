package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/harkhq/hark/client"
)

// recommCommand is one `hark recomm` subcommand. Each has its own flags, so `--help` lists only them.
type recommCommand struct {
	name    string // "table create"
	args    string // positional arguments and flags, for the usage line
	summary string
	run     func(e *recommEnv, args []string) error
}

// recommEnv is what every subcommand works with.
type recommEnv struct {
	ctx            context.Context
	r              *client.RecommService
	storage        *client.StorageService
	stdout, stderr io.Writer
}

func recommCommands() []recommCommand {
	return []recommCommand{
		{"tables", "[--json]", "list the tables with their engines and display attribute", cmdRecommTables},
		{"table create", "NAME [--engines E,SLOT=E,...] [--json]", "create a table (engines: hybrid, content_based, fm, isvd, popular; a bare one is the default, SLOT=E sets items-to-user, users-to-user, users-to-item or items-to-item)", cmdRecommTableCreate},
		{"table display", "NAME ATTR [--json]", `choose the attribute that names the table's items ("" for automatic: title, name, the first string)`, cmdRecommTableDisplay},
		{"table rm", "NAME [--json]", "delete a table with its items, interactions and models", cmdRecommTableRm},
		{"attr add", "(--table T | --users) NAME TYPE [--indexed] [--categorical] [--values V,...] [--json]", "add an attribute to a table's items or to the users", cmdRecommAttrAdd},
		{"interaction add", "NAME --table T --type unary|binary|categorical|continuous [--weight W] [--min M --max M] [--cumulative] [--negative] [--json]", "add an interaction type to a table", cmdRecommInteractionAdd},
		{"jobs", "[--limit N] [--json]", "list recent imports, trainings and batch recommendations", cmdRecommJobs},
		{"sample", "[--wait] [--json]", "load the sample catalog (sandbox films, restaurants, news, 200 users) and train it", cmdRecommSample},
		{"import movielens", "DIR --table T [--train ENGINE] [--wait] [--json]", "load a MovieLens directory (movies.csv, ratings.csv, optional tags.csv)", cmdRecommImportMovieLens},
		{"import", "--table T --kind items|users|interactions FILE|URL [--map SRC=DST,...] [--format csv|json] [--wait] [--json]", "import a local file (uploaded to storage) or a URL", cmdRecommImport},
		{"items", "--table T [--search TEXT] [--filter RSQL] [--limit N] [--after ID] [--json]", "list a table's items with their titles, ids in numeric order", cmdRecommItems},
		{"history", "--table T --user U [--limit N] [--json]", "what a user interacted with, newest first", cmdRecommHistory},
		{"train", "--table T [--engine E] [--wait] [--json]", "train a model of a table", cmdRecommTrain},
		{"recommend", "--table T (--user U | --item I) [--want items|users] [--engine E] [--filter RSQL] [--diversity 0..1] [--limit N] [--explain] [--json]", "recommend, with each item's title", cmdRecommRecommend},
	}
}

func recommUsage(w io.Writer) {
	fmt.Fprint(w, "hark recomm: the recommendation service: catalogs, imports, training, recommendations\n\nusage: hark recomm COMMAND [ARGS]\n\ncommands:\n")
	tw := tabwriter.NewWriter(w, 0, 4, 3, ' ', 0)
	for _, c := range recommCommands() {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nRun 'hark recomm COMMAND --help' for a command's arguments and flags.")
}

// cmdRecomm runs `hark recomm SUBCOMMAND`. The platform is started only
// when the subcommand runs: help and usage mistakes need none.
func cmdRecomm(e *cliEnv, args []string) error {
	if len(args) == 0 || isHelpFlag(args[0]) || args[0] == "help" {
		recommUsage(e.stdout)
		return errHelpShown
	}
	// the longest name that prefixes the arguments wins: "import movielens" before "import"
	var best *recommCommand
	words := 0
	for _, c := range recommCommands() {
		name := strings.Fields(c.name)
		if len(args) >= len(name) && slices.Equal(args[:len(name)], name) && len(name) > words {
			c := c
			best, words = &c, len(name)
		}
	}
	if best == nil {
		fmt.Fprintf(e.stderr, "hark recomm: unknown command %q\nRun 'hark recomm --help' for its commands.\n", strings.Join(args[:min(2, len(args))], " "))
		return exitError{2}
	}
	env := &recommEnv{ctx: e.ctx, stdout: e.stdout, stderr: e.stderr}
	if !slices.ContainsFunc(args[words:], isHelpFlag) {
		p, err := e.platform()
		if err != nil {
			return err
		}
		env.r, env.storage = p.Client.Recomm, p.Client.Storage
	}
	return finish(best.run(env, args[words:]))
}

// subFlags is the flag set of one subcommand; usage goes where --help asked.
type subFlags struct {
	*flag.FlagSet
	cmd  string
	json *bool
}

func newSubFlags(e *recommEnv, name string) *subFlags {
	fs := flag.NewFlagSet("hark recomm "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	sf := &subFlags{FlagSet: fs, cmd: name}
	sf.json = fs.Bool("json", false, "print the answer as JSON")
	return sf
}

func (sf *subFlags) usage(w io.Writer) {
	for _, c := range recommCommands() {
		if c.name == sf.cmd {
			fmt.Fprintf(w, "usage: hark recomm %s %s\n  %s\n", c.name, c.args, c.summary)
		}
	}
	sf.SetOutput(w)
	sf.PrintDefaults()
	sf.SetOutput(io.Discard)
}

// parse reads flags anywhere among the arguments and returns the positional ones; want is how many
// positional arguments the subcommand takes. --help prints the subcommand's own usage and flags.
func (sf *subFlags) parse(e *recommEnv, args []string, want int) ([]string, error) {
	return sf.parseRange(e, args, want, want)
}

// parseRange is parse for a subcommand taking from least to most positional arguments.
func (sf *subFlags) parseRange(e *recommEnv, args []string, least, most int) ([]string, error) {
	var pos []string
	for {
		if err := sf.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				sf.usage(e.stdout)
				return nil, errHelpShown
			}
			fmt.Fprintf(e.stderr, "hark recomm %s: %v\n", sf.cmd, err)
			sf.usage(e.stderr)
			return nil, exitError{2}
		}
		rest := sf.Args()
		if len(rest) == 0 {
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	if len(pos) < least || len(pos) > most {
		if most == 0 {
			fmt.Fprintf(e.stderr, "hark recomm %s: unexpected argument %q\n", sf.cmd, pos[0])
		} else {
			fmt.Fprintf(e.stderr, "hark recomm %s: takes %d argument(s), got %d\n", sf.cmd, most, len(pos))
		}
		sf.usage(e.stderr)
		return nil, exitError{2}
	}
	return pos, nil
}

// finish turns errHelpShown into success.
func finish(err error) error {
	if errors.Is(err, errHelpShown) {
		return nil
	}
	return err
}

// usageError reports a missing or bad flag with the subcommand's usage, exit status 2.
func (sf *subFlags) usageError(e *recommEnv, format string, a ...any) error {
	fmt.Fprintf(e.stderr, "hark recomm %s: %s\n", sf.cmd, fmt.Sprintf(format, a...))
	sf.usage(e.stderr)
	return exitError{2}
}

func recommJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// table fetches a table; an unknown one is an error naming the tables that exist.
func (e *recommEnv) table(id string) (client.Table, error) {
	t, err := e.r.Table(e.ctx, id, false)
	if client.IsNotFound(err) {
		return t, fmt.Errorf("no table %q; %s", id, e.tableList())
	}
	return t, err
}

func (e *recommEnv) tableList() string {
	ids, err := e.r.Tables(e.ctx)
	if err != nil || len(ids) == 0 {
		return "there are no tables yet (hark recomm table create NAME, hark recomm sample, or hark recomm import movielens DIR --table NAME)"
	}
	return "the tables are: " + strings.Join(ids, ", ")
}

func cmdRecommTrain(e *recommEnv, args []string) error {
	sf := newSubFlags(e, "train")
	table := sf.String("table", "", "table id")
	engine := sf.String("engine", client.EngineHybrid, "engine: hybrid, content_based, fm, isvd or popular")
	wait := sf.Bool("wait", false, "wait until the training ends")
	if _, err := sf.parse(e, args, 0); err != nil {
		return finish(err)
	}
	if *table == "" {
		return sf.usageError(e, "--table is required")
	}
	if _, err := e.table(*table); err != nil {
		return err
	}
	job, err := e.train(*table, *engine, *wait, !*sf.json)
	if err != nil {
		return err
	}
	if *sf.json {
		return recommJSON(e.stdout, job)
	}
	return nil
}

// train queues a training and, with wait, follows it to its end; a training that does not end
// completed is an error.
func (e *recommEnv) train(table, engine string, wait, verbose bool) (client.TrainJob, error) {
	job, err := e.r.Train(e.ctx, table, client.TrainRequest{Engine: engine})
	if err != nil {
		return job, err
	}
	if verbose {
		fmt.Fprintf(e.stdout, "training %s %s %s\n", engine, job.RequestID, job.Status)
	}
	if !wait {
		return job, nil
	}
	job, err = e.r.WaitTraining(e.ctx, table, job.RequestID, 100*time.Millisecond, nil)
	if err != nil {
		return job, err
	}
	if verbose {
		fmt.Fprintf(e.stdout, "training %s %s %s%s\n", engine, job.RequestID, job.Status, suffix(job.Message))
		if line := tuningLine(job); line != "" {
			fmt.Fprintf(e.stdout, "  %s\n", line)
		}
	}
	if job.Status != client.StatusCompleted && job.Status != client.StatusCompletedWithErrors {
		return job, fmt.Errorf("training ended %s: %s", job.Status, job.Message)
	}
	return job, nil
}

// tuningLine says in one line what a training's search chose, or why it did not search.
func tuningLine(job client.TrainJob) string {
	t, ok := job.Summary()
	switch {
	case !ok:
		return ""
	case t.Skipped != "":
		return "no search: " + t.Skipped
	case t.Validation == nil:
		return ""
	}
	var keys []string
	for k := range t.Chosen {
		if k != "defaults" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	settings := make([]string, len(keys))
	for i, k := range keys {
		settings[i] = fmt.Sprintf("%s %v", k, t.Chosen[k])
	}
	what := "kept the defaults"
	if d, _ := t.Chosen["defaults"].(bool); !d {
		what = "chose"
	}
	return fmt.Sprintf("search: %d settings in %.0f s, %s (%s); validation NDCG@10 %.4f, defaults %.4f",
		t.Trials, t.Seconds, what, strings.Join(settings, ", "), t.Validation.Chosen.NDCG, t.Validation.Defaults.NDCG)
}

func suffix(msg string) string {
	if msg == "" {
		return ""
	}
	return ": " + msg
}

// recommendation is one printed result: the entity, its title and its match.
type recommendation struct {
	ID      string          `json:"id"`
	Title   string          `json:"title,omitempty"`
	Match   float64         `json:"match"`
	Because []client.Reason `json:"because,omitempty"`
}

func cmdRecommRecommend(e *recommEnv, args []string) error {
	sf := newSubFlags(e, "recommend")
	table := sf.String("table", "", "table id")
	user := sf.String("user", "", "recommend for this user")
	item := sf.String("item", "", "recommend for this item (more like this)")
	want := sf.String("want", "items", "recommend items or users")
	engine := sf.String("engine", "", "engine (default: the table's)")
	filter := sf.String("filter", "", "RSQL filter on the recommended entities")
	diversity := sf.Float64("diversity", 0, "diversity, 0 to 1 (hybrid only)")
	limit := sf.Int("limit", 10, "how many")
	explain := sf.Bool("explain", false, "show the past items behind each recommendation")
	if _, err := sf.parse(e, args, 0); err != nil {
		return finish(err)
	}
	if *table == "" {
		return sf.usageError(e, "--table is required")
	}
	if (*user == "") == (*item == "") {
		return sf.usageError(e, "give exactly one of --user and --item")
	}
	if *want != "items" && *want != "users" {
		return sf.usageError(e, "--want %q: use items or users", *want)
	}
	t, err := e.table(*table)
	if err != nil {
		return err
	}
	opt := client.RecommendOptions{Engine: *engine, Filter: *filter, Diversity: *diversity, Limit: *limit, Explain: *explain}
	if *want == "items" && t.DisplayAttribute != "" {
		opt.Attributes = []string{t.DisplayAttribute}
	}
	recs, err := recommend(e.ctx, e.r, *table, *user, *item, *want, opt)
	if err != nil {
		return err
	}
	out := make([]recommendation, len(recs))
	for i, rec := range recs {
		out[i] = recommendation{ID: rec.ID(), Match: rec.Match, Because: rec.Because}
		if v, ok := rec.Values[t.DisplayAttribute]; ok && v != nil {
			out[i].Title = fmt.Sprint(v)
		}
	}
	if *explain && *want == "items" && t.DisplayAttribute != "" {
		e.titleReasons(*table, t.DisplayAttribute, out)
	}
	if *sf.json {
		return recommJSON(e.stdout, out)
	}
	for i, rec := range out {
		label := rec.ID
		if rec.Title != "" {
			label = rec.Title + " (" + rec.ID + ")"
		}
		fmt.Fprintf(e.stdout, "%2d. %5.1f%%  %s\n", i+1, rec.Match, label)
		for _, b := range rec.Because {
			fmt.Fprintf(e.stdout, "           because of %s (%.0f%% alike)\n", b.ItemID, b.Match)
		}
	}
	return nil
}

// titleReasons replaces the ids of reasons by "title (id)" where the item has a title.
func (e *recommEnv) titleReasons(table, display string, out []recommendation) {
	titles := map[string]string{}
	for i := range out {
		for k, b := range out[i].Because {
			title, ok := titles[b.ItemID]
			if !ok {
				if v, err := e.r.Item(e.ctx, table, b.ItemID); err == nil && v[display] != nil {
					title = fmt.Sprint(v[display])
				}
				titles[b.ItemID] = title
			}
			if title != "" {
				out[i].Because[k].ItemID = title + " (" + b.ItemID + ")"
			}
		}
	}
}

// recommend picks the path from the subject (user or item) and what is wanted.
func recommend(ctx context.Context, r *client.RecommService, table, user, item, want string, opt client.RecommendOptions) ([]client.Recommendation, error) {
	switch {
	case user != "" && want == "items":
		return r.ItemsForUser(ctx, table, user, opt)
	case user != "" && want == "users":
		return r.UsersForUser(ctx, table, user, opt)
	case item != "" && want == "items":
		return r.ItemsForItem(ctx, table, item, opt)
	case item != "" && want == "users":
		return r.UsersForItem(ctx, table, item, opt)
	}
	return nil, fmt.Errorf("--want %q: use items or users", want)
}
