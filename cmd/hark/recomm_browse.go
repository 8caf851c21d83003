package main

import (
	"fmt"
	"time"

	"github.com/harkhq/hark/client"
)

// titledItem is one item of a listing: its id and its display value.
type titledItem struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
}

func cmdRecommItems(e *recommEnv, args []string) error {
	sf := newSubFlags(e, "items")
	table := sf.String("table", "", "table id")
	search := sf.String("search", "", "keep items whose title or id contains this, in any case")
	filter := sf.String("filter", "", "RSQL filter, e.g. genres==Comedy;year=ge=2000")
	limit := sf.Int("limit", 20, "how many")
	after := sf.String("after", "", "the last id of the previous page")
	if _, err := sf.parse(e, args, 0); err != nil {
		return finish(err)
	}
	if *table == "" {
		return sf.usageError(e, "--table is required")
	}
	t, err := e.table(*table)
	if err != nil {
		return err
	}
	q := client.ListQuery{Search: *search, Filter: *filter, Limit: *limit, AfterID: *after}
	var out []titledItem
	if t.DisplayAttribute == "" {
		ids, err := e.r.Items(e.ctx, *table, q)
		if err != nil {
			return err
		}
		for _, id := range ids {
			out = append(out, titledItem{ID: id})
		}
	} else {
		rows, err := e.r.ItemsWithAttributes(e.ctx, *table, q, t.DisplayAttribute)
		if err != nil {
			return err
		}
		for _, row := range rows {
			it := titledItem{ID: fmt.Sprint(row["itemId"])}
			if v, ok := row[t.DisplayAttribute]; ok && v != nil {
				it.Title = fmt.Sprint(v)
			}
			out = append(out, it)
		}
	}
	if *sf.json {
		return recommJSON(e.stdout, out)
	}
	for _, it := range out {
		fmt.Fprintf(e.stdout, "%-12s %s\n", it.ID, it.Title)
	}
	return nil
}

// historyEntry is one past interaction with the item's title.
type historyEntry struct {
	client.HistoryEntry
	Title string `json:"title,omitempty"`
}

func cmdRecommHistory(e *recommEnv, args []string) error {
	sf := newSubFlags(e, "history")
	table := sf.String("table", "", "table id")
	user := sf.String("user", "", "user id")
	limit := sf.Int("limit", 20, "how many, newest first")
	if _, err := sf.parse(e, args, 0); err != nil {
		return finish(err)
	}
	if *table == "" || *user == "" {
		return sf.usageError(e, "--table and --user are required")
	}
	t, err := e.table(*table)
	if err != nil {
		return err
	}
	list, err := e.r.UserHistory(e.ctx, *table, *user, *limit)
	if err != nil {
		return err
	}
	out := make([]historyEntry, len(list))
	for i, h := range list {
		out[i] = historyEntry{HistoryEntry: h}
		if t.DisplayAttribute != "" {
			if v, err := e.r.Item(e.ctx, *table, h.ItemID); err == nil && v[t.DisplayAttribute] != nil {
				out[i].Title = fmt.Sprint(v[t.DisplayAttribute])
			}
		}
	}
	if *sf.json {
		return recommJSON(e.stdout, out)
	}
	for _, h := range out {
		label := h.ItemID
		if h.Title != "" {
			label = h.Title + " (" + h.ItemID + ")"
		}
		fmt.Fprintf(e.stdout, "%s  %-8s %5g  %s\n", time.UnixMilli(h.Timestamp).UTC().Format("2006-01-02 15:04"), h.InteractionID, h.Value, label)
	}
	return nil
}
