package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/harkhq/hark/client"
)

func cmdRecommTables(e *recommEnv, args []string) error {
	sf := newSubFlags(e, "tables")
	if _, err := sf.parse(e, args, 0); err != nil {
		return finish(err)
	}
	ids, err := e.r.Tables(e.ctx)
	if err != nil {
		return err
	}
	if !*sf.json {
		for _, id := range ids {
			fmt.Fprintln(e.stdout, id)
		}
		return nil
	}
	out := make([]client.Table, 0, len(ids))
	for _, id := range ids {
		t, err := e.r.Table(e.ctx, id, false)
		if err != nil {
			return err
		}
		out = append(out, t)
	}
	return recommJSON(e.stdout, out)
}

func cmdRecommTableCreate(e *recommEnv, args []string) error {
	sf := newSubFlags(e, "table create")
	enginesFlag := sf.String("engines", client.EngineHybrid, "the default engine and SLOT=ENGINE pairs, comma-separated")
	pos, err := sf.parse(e, args, 1)
	if err != nil {
		return finish(err)
	}
	engines := client.Engines{}
	for _, x := range splitList(*enginesFlag) {
		slot, engine, ok := strings.Cut(x, "=")
		if !ok {
			slot, engine = client.SlotDefault, x
		}
		engines[strings.TrimSpace(slot)] = strings.TrimSpace(engine)
	}
	if len(engines) == 0 {
		return sf.usageError(e, "--engines is empty")
	}
	if err := e.r.CreateTable(e.ctx, client.NewTable{TableID: pos[0], Engines: engines}); err != nil {
		return err
	}
	t, err := e.r.Table(e.ctx, pos[0], false)
	if err != nil {
		return err
	}
	if *sf.json {
		return recommJSON(e.stdout, t)
	}
	fmt.Fprintf(e.stdout, "table %s created (engine %s)\n", t.TableID, t.Engines[client.SlotDefault])
	return nil
}

func cmdRecommTableDisplay(e *recommEnv, args []string) error {
	sf := newSubFlags(e, "table display")
	pos, err := sf.parse(e, args, 2)
	if err != nil {
		return finish(err)
	}
	if _, err := e.table(pos[0]); err != nil {
		return err
	}
	if err := e.r.SetDisplayAttribute(e.ctx, pos[0], pos[1]); err != nil {
		return err
	}
	t, err := e.r.Table(e.ctx, pos[0], false)
	if err != nil {
		return err
	}
	if *sf.json {
		return recommJSON(e.stdout, t)
	}
	fmt.Fprintf(e.stdout, "table %s names its items by %s\n", t.TableID, t.DisplayAttribute)
	return nil
}

func cmdRecommTableRm(e *recommEnv, args []string) error {
	sf := newSubFlags(e, "table rm")
	pos, err := sf.parse(e, args, 1)
	if err != nil {
		return finish(err)
	}
	if err := e.r.DeleteTable(e.ctx, pos[0]); err != nil {
		if client.IsNotFound(err) {
			return fmt.Errorf("no table %q; %s", pos[0], e.tableList())
		}
		return err
	}
	if *sf.json {
		return recommJSON(e.stdout, map[string]string{"tableId": pos[0], "deleted": "true"})
	}
	fmt.Fprintf(e.stdout, "table %s deleted\n", pos[0])
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func cmdRecommAttrAdd(e *recommEnv, args []string) error {
	sf := newSubFlags(e, "attr add")
	table := sf.String("table", "", "the table whose items get the attribute")
	sf.Bool("items", false, "an item attribute (the default; needs --table)")
	users := sf.Bool("users", false, "a user attribute")
	indexed := sf.Bool("indexed", false, "index the attribute for filters and sorts")
	categorical := sf.Bool("categorical", false, "string becomes category, set becomes categoryList")
	values := sf.String("values", "", "allowed values of a categorical attribute, comma-separated")
	pos, err := sf.parse(e, args, 2)
	if err != nil {
		return finish(err)
	}
	if *users == (*table != "") {
		return sf.usageError(e, "give either --table T (an item attribute) or --users")
	}
	a := client.Attribute{AttributeID: pos[0], Type: pos[1], Indexed: *indexed, Values: splitList(*values)}
	if *categorical {
		switch a.Type {
		case client.TypeString, client.TypeCategory:
			a.Type = client.TypeCategory
		case client.TypeSet, client.TypeCategoryList:
			a.Type = client.TypeCategoryList
		default:
			return sf.usageError(e, "--categorical applies to string and set attributes, not %s", a.Type)
		}
	}
	if *users {
		err = e.r.AddUserAttributes(e.ctx, a)
	} else {
		if _, err := e.table(*table); err != nil {
			return err
		}
		err = e.r.AddAttributes(e.ctx, *table, a)
	}
	if err != nil {
		return err
	}
	if *sf.json {
		return recommJSON(e.stdout, a)
	}
	owner := "the users"
	if !*users {
		owner = "the items of " + *table
	}
	fmt.Fprintf(e.stdout, "attribute %s (%s) added to %s\n", a.AttributeID, a.Type, owner)
	return nil
}

func cmdRecommInteractionAdd(e *recommEnv, args []string) error {
	sf := newSubFlags(e, "interaction add")
	table := sf.String("table", "", "table id")
	typ := sf.String("type", "", "unary, binary, categorical or continuous")
	weight := sf.Float64("weight", 1, "relevance, 0 to 10")
	lo := sf.String("min", "", "the least value (categorical and continuous)")
	hi := sf.String("max", "", "the greatest value (categorical and continuous)")
	cumulative := sf.Bool("cumulative", false, "repeated interactions add up")
	negative := sf.Bool("negative", false, "the interaction shows disinterest")
	pos, err := sf.parse(e, args, 1)
	if err != nil {
		return finish(err)
	}
	if *table == "" || *typ == "" {
		return sf.usageError(e, "--table and --type are required")
	}
	if _, err := e.table(*table); err != nil {
		return err
	}
	def := client.Interaction{InteractionID: pos[0], Weight: *weight, Cumulative: *cumulative, Type: *typ}
	if *negative {
		def.Polarity = client.PolarityNegative
	}
	for _, b := range []struct {
		flag, v string
		to      **float64
	}{{"min", *lo, &def.MinValue}, {"max", *hi, &def.MaxValue}} {
		if b.v == "" {
			continue
		}
		var f float64
		if _, err := fmt.Sscan(b.v, &f); err != nil {
			return sf.usageError(e, "--%s %q is not a number", b.flag, b.v)
		}
		*b.to = &f
	}
	if err := e.r.CreateInteraction(e.ctx, *table, def); err != nil {
		return err
	}
	got, err := e.r.Interaction(e.ctx, *table, pos[0])
	if err != nil {
		return err
	}
	if *sf.json {
		return recommJSON(e.stdout, got)
	}
	fmt.Fprintf(e.stdout, "interaction %s (%s, weight %g, values %g to %g) added to %s\n", got.InteractionID, got.Type, got.Weight,
		deref(got.MinValue), deref(got.MaxValue), *table)
	return nil
}

func deref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

func cmdRecommJobs(e *recommEnv, args []string) error {
	sf := newSubFlags(e, "jobs")
	limit := sf.Int("limit", 20, "how many, newest first")
	if _, err := sf.parse(e, args, 0); err != nil {
		return finish(err)
	}
	list, err := e.r.Jobs(e.ctx, *limit)
	if err != nil {
		return err
	}
	if *sf.json {
		return recommJSON(e.stdout, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(e.stdout, "no jobs yet")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CREATED\tKIND\tTABLE\tSTATUS\tREQUEST")
	for _, j := range list {
		table := j.TableID
		if table == "" {
			table = "(users)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", time.UnixMilli(j.Created).Format("2006-01-02 15:04:05"), j.Kind, table, j.Status, j.RequestID)
	}
	return tw.Flush()
}

func cmdRecommSample(e *recommEnv, args []string) error {
	sf := newSubFlags(e, "sample")
	wait := sf.Bool("wait", false, "wait until the tables are trained")
	if _, err := sf.parse(e, args, 0); err != nil {
		return finish(err)
	}
	sum, err := e.r.LoadSample(e.ctx)
	if err != nil {
		return err
	}
	if *wait {
		for _, t := range sum.Tables {
			job, err := e.r.WaitTraining(e.ctx, t.TableID, t.TrainRequestID, 100*time.Millisecond, nil)
			if err != nil {
				return err
			}
			if job.Status != client.StatusCompleted {
				return fmt.Errorf("training of %s ended %s: %s", t.TableID, job.Status, job.Message)
			}
		}
	}
	if *sf.json {
		return recommJSON(e.stdout, sum)
	}
	fmt.Fprintf(e.stdout, "sample catalog loaded: %d users\n", sum.Users)
	for _, t := range sum.Tables {
		fmt.Fprintf(e.stdout, "  %-16s %4d items  %5d %s interactions  (training %s)\n", t.TableID, t.Items, t.Interactions, t.InteractionID, t.TrainRequestID)
	}
	if len(sum.Tables) > 0 {
		fmt.Fprintf(e.stdout, "try: hark recomm recommend --table %s --user sandbox-u001\n", sum.Tables[0].TableID)
	}
	return nil
}
