package catalog

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/recomm/rsql"
)

// displayNames are the attribute ids that name an entity, in order of preference.
var displayNames = []string{"title", "name"}

// autoDisplay picks the attribute that names entities: title, then name (any case), then the first
// string attribute; "" when there is none (the id names them).
func autoDisplay(attrs []Attribute) string {
	for _, want := range displayNames {
		for _, a := range attrs {
			if strings.EqualFold(a.ID, want) && (a.Type == rsql.String || a.Type == rsql.Category) {
				return a.ID
			}
		}
	}
	for _, a := range attrs {
		if a.Type == rsql.String {
			return a.ID
		}
	}
	return ""
}

// DisplayAttribute returns the attribute that names the entities of a scope: for a table, the one
// set with SetDisplay while it exists, else the automatic choice; for users, the automatic choice.
func (c *Catalog) DisplayAttribute(ctx context.Context, ws int64, scope string) (string, error) {
	attrs, err := c.Attributes(ctx, ws, scope)
	if err != nil {
		return "", err
	}
	if scope != Users {
		t, err := c.Table(ctx, ws, scope)
		if err != nil {
			return "", err
		}
		if t.Display != "" && slices.ContainsFunc(attrs, func(a Attribute) bool { return a.ID == t.Display }) {
			return t.Display, nil
		}
	}
	return autoDisplay(attrs), nil
}

// SetDisplay chooses the attribute that names a table's items; "" returns to the automatic choice.
func (c *Catalog) SetDisplay(ctx context.Context, ws int64, table, attribute string) error {
	attrs, err := c.Attributes(ctx, ws, table)
	if err != nil {
		return err
	}
	if attribute != "" && !slices.ContainsFunc(attrs, func(a Attribute) bool { return a.ID == attribute }) {
		return apierr.InvalidArgumentf("displayAttribute: %q is not an attribute of table %q (it has %s)", attribute, table, AttributeNames(attrs))
	}
	// the cached table description (definitions.go)
	_, err = c.execRecords(ctx, ws, `UPDATE recomm_tables SET display = $1 WHERE ws = $2 AND id = $3`, attribute, ws, table)
	return err
}

// AttributeNames lists attribute ids for messages that name what exists.
func AttributeNames(attrs []Attribute) string {
	if len(attrs) == 0 {
		return "no attributes"
	}
	ids := make([]string, len(attrs))
	for i, a := range attrs {
		ids[i] = a.ID
	}
	return strings.Join(ids, ", ")
}

// CompareIDs is the order of entity listings: shorter ids first, then by text, so that numeric ids
// (and ids that differ in a numeric suffix, like i2 and i10) come in numeric order. The listing SQL
// orders by the same key (length(id), id).
func CompareIDs(a, b string) int {
	if c := cmp.Compare(utf8.RuneCountInString(a), utf8.RuneCountInString(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}
