package recomm

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/ui/components"
)

// forbidden are the characters no id of the recommendation service may contain (the contract's
// identifier rule).
const forbidden = `\$./<>:"#%&*?|{}`

// checkID is the identifier rule, said in place.
func checkID(what string) func(string, []string) string {
	return func(v string, _ []string) string {
		if v == "" {
			return what + " is required"
		}
		if i := strings.IndexAny(v, forbidden); i >= 0 {
			return fmt.Sprintf("%q is not allowed in an id (none of %s)", v[i:i+1], forbidden)
		}
		return ""
	}
}

func oneOf(choices ...string) func(string, []string) string {
	return func(v string, _ []string) string {
		if !contains(choices, v) {
			return "one of " + strings.Join(choices, ", ")
		}
		return ""
	}
}

var attributeTypes = []string{client.TypeString, client.TypeInt, client.TypeDouble, client.TypeBoolean, client.TypeTimestamp,
	client.TypeCategory, client.TypeCategoryList, client.TypeSet, client.TypeImage, client.TypeImageList}

var interactionTypes = []string{client.InteractionUnary, client.InteractionBinary, client.InteractionCategorical, client.InteractionContinuous}

func (r *Model) openForm(of, title string, fields ...*components.FormField) tea.Cmd {
	r.form, r.formOf = components.NewFieldForm(r.ctx, title, fields...), of
	r.form.SetWidth(r.width)
	return nil
}

func (r *Model) tableForm() tea.Cmd {
	return r.openForm("table", "New table",
		&components.FormField{Label: "name", Hint: "e.g. films (no . / : and the like)", Check: checkID("the name")},
		&components.FormField{Label: "engine", Value: client.EngineHybrid, Hint: strings.Join(engineNames, ", "), Check: oneOf(engineNames...)})
}

func (r *Model) attributeForm() tea.Cmd {
	return r.openForm("attribute", "New attribute of the items of "+r.table,
		&components.FormField{Label: "name", Hint: "e.g. title, genres, year", Check: checkID("the name")},
		&components.FormField{Label: "type", Value: client.TypeString, Hint: strings.Join(attributeTypes, ", "), Check: oneOf(attributeTypes...)},
		&components.FormField{Label: "indexed", Value: "no", Hint: "yes or no (indexed attributes filter faster)", Check: oneOf("yes", "no")},
		&components.FormField{Label: "values", Hint: "allowed values of a category, comma-separated (empty: any)", Check: func(v string, all []string) string {
			if v != "" && all[1] != client.TypeCategory && all[1] != client.TypeCategoryList {
				return "only a category or categoryList attribute lists its values"
			}
			return ""
		}})
}

func checkNumber(optional bool) func(string, []string) string {
	return func(v string, _ []string) string {
		if v == "" && optional {
			return ""
		}
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return "a number, e.g. 1 or 0.5"
		}
		return ""
	}
}

func (r *Model) interactionForm() tea.Cmd {
	bounds := func(v string, all []string) string {
		if p := checkNumber(true)(v, all); p != "" {
			return p
		}
		if v != "" && (all[1] == client.InteractionUnary || all[1] == client.InteractionBinary) {
			return all[1] + " interactions take no bounds"
		}
		lo, e1 := strconv.ParseFloat(all[3], 64)
		hi, e2 := strconv.ParseFloat(all[4], 64)
		if e1 == nil && e2 == nil && lo >= hi {
			return "min must be below max"
		}
		return ""
	}
	return r.openForm("interaction", "New interaction type of "+r.table,
		&components.FormField{Label: "name", Hint: "e.g. rating, like, view", Check: checkID("the name")},
		&components.FormField{Label: "type", Value: client.InteractionContinuous, Hint: strings.Join(interactionTypes, ", "), Check: oneOf(interactionTypes...)},
		&components.FormField{Label: "weight", Value: "1", Hint: "how much it counts (negative: dislike)", Check: checkNumber(false)},
		&components.FormField{Label: "min", Hint: "lowest value (empty: the type's default)", Check: bounds},
		&components.FormField{Label: "max", Hint: "highest value (empty: the type's default)", Check: bounds})
}

func (r *Model) importForm() tea.Cmd {
	return r.openForm("import", "Import a file into "+r.table+" (CSV with a header, or JSON)",
		&components.FormField{Label: "kind", Value: "items", Hint: "items, users or interactions", Check: oneOf("items", "users", "interactions")},
		&components.FormField{Label: "file", Hint: "a local path; tab completes", Complete: components.CompletePath, Check: func(v string, _ []string) string {
			if v == "" {
				return "choose a file"
			}
			if ext := strings.ToLower(filepath.Ext(v)); ext != ".csv" && ext != ".json" && !strings.HasSuffix(v, "/") {
				return "a .csv or .json file"
			}
			return ""
		}})
}

func (r *Model) formKey(msg tea.KeyMsg) tea.Cmd {
	cmd, res := r.form.Update(msg)
	if res == nil {
		return cmd
	}
	of := r.formOf
	r.form, r.formOf = nil, ""
	if res.Cancelled {
		return nil
	}
	v := res.Values
	rc, table := r.ctx.Client.Recomm, r.table
	switch of {
	case "table":
		return r.ctx.Task("creating a table", func(ctx context.Context) tea.Msg {
			err := rc.CreateTable(ctx, client.NewTable{TableID: v[0], Engines: client.Engines{client.SlotDefault: v[1]}})
			return savedMsg{what: "created table " + v[0] + ": open it, add attributes and an interaction type, then import", err: err}
		})
	case "attribute":
		a := client.Attribute{AttributeID: v[0], Type: v[1], Indexed: v[2] == "yes"}
		for _, s := range strings.Split(v[3], ",") {
			if s = strings.TrimSpace(s); s != "" {
				a.Values = append(a.Values, s)
			}
		}
		return r.ctx.Task("adding an attribute", func(ctx context.Context) tea.Msg {
			return savedMsg{what: "added attribute " + a.AttributeID, err: rc.AddAttributes(ctx, table, a)}
		})
	case "interaction":
		w, _ := strconv.ParseFloat(v[2], 64)
		def := client.Interaction{InteractionID: v[0], Type: v[1], Weight: w}
		if lo, err := strconv.ParseFloat(v[3], 64); err == nil {
			def.MinValue = &lo
		}
		if hi, err := strconv.ParseFloat(v[4], 64); err == nil {
			def.MaxValue = &hi
		}
		return r.ctx.Task("adding an interaction type", func(ctx context.Context) tea.Msg {
			err := rc.CreateInteraction(ctx, table, def)
			return savedMsg{what: "added interaction type " + def.InteractionID, err: err}
		})
	case "import":
		kinds := map[string]client.ImportKind{"items": client.ImportItems, "users": client.ImportUsers, "interactions": client.ImportInteractions}
		return r.importFile(kinds[v[0]], v[1])
	}
	return nil
}

// setDisplay names the table's items by an attribute.
func (r *Model) setDisplay(attr string) tea.Cmd {
	rc, table := r.ctx.Client.Recomm, r.table
	return r.ctx.Task("naming items", func(ctx context.Context) tea.Msg {
		err := rc.SetDisplayAttribute(ctx, table, attr)
		return savedMsg{what: "items of " + table + " are now named by " + attr, err: err}
	})
}
