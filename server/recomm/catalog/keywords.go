package catalog

import (
	"context"
	"database/sql"
	"strings"
	"unicode/utf8"

	"github.com/harkhq/hark/server/apierr"
)

// MaxKeywordLen bounds one warm-up keyword.
const MaxKeywordLen = 255

func (c *Catalog) userExists(ctx context.Context, ws int64, userID string) error {
	if err := validateEntityID(Users, userID); err != nil {
		return err
	}
	var one int
	err := c.db.QueryRowContext(ctx, `SELECT 1 FROM recomm_entities WHERE ws = $1 AND scope = '' AND id = $2`, ws, userID).Scan(&one)
	if err == sql.ErrNoRows {
		return apierr.NotFoundf("user %q not found", userID)
	}
	return err
}

// AddKeywords adds warm-up keywords to a user.
func (c *Catalog) AddKeywords(ctx context.Context, ws int64, userID string, keywords []string) error {
	if len(keywords) == 0 {
		return apierr.InvalidArgumentf("keywords: at least one keyword is required")
	}
	for _, k := range keywords {
		if k == "" || len(k) > MaxKeywordLen {
			return apierr.InvalidArgumentf("keywords: each keyword has 1 to %d characters", MaxKeywordLen)
		}
		if strings.IndexByte(k, 0) >= 0 || !utf8.ValidString(k) {
			// the PostgreSQL store keeps neither; refused on both engines alike
			return apierr.InvalidArgumentf("keywords: a keyword is valid UTF-8 without NUL characters")
		}
	}
	if err := c.userExists(ctx, ws, userID); err != nil {
		return err
	}
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, k := range keywords {
		if _, err := tx.ExecContext(ctx, `INSERT INTO recomm_keywords(ws, "user", keyword) VALUES($1, $2, $3) ON CONFLICT DO NOTHING`, ws, userID, k); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Keywords lists a user's keywords in order.
func (c *Catalog) Keywords(ctx context.Context, ws int64, userID string) ([]string, error) {
	if err := c.userExists(ctx, ws, userID); err != nil {
		return nil, err
	}
	rows, err := c.db.QueryContext(ctx, `SELECT keyword FROM recomm_keywords WHERE ws = $1 AND "user" = $2 ORDER BY keyword`, ws, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// DeleteKeywords deletes the given keywords of a user, or all of them when
// keywords is nil.
func (c *Catalog) DeleteKeywords(ctx context.Context, ws int64, userID string, keywords []string) error {
	if err := c.userExists(ctx, ws, userID); err != nil {
		return err
	}
	if keywords == nil {
		_, err := c.db.ExecContext(ctx, `DELETE FROM recomm_keywords WHERE ws = $1 AND "user" = $2`, ws, userID)
		return err
	}
	tx, err := c.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, k := range keywords {
		if _, err := tx.ExecContext(ctx, `DELETE FROM recomm_keywords WHERE ws = $1 AND "user" = $2 AND keyword = $3`, ws, userID, k); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// AllKeywords returns the keywords of every user of a workspace who has some.
func (c *Catalog) AllKeywords(ctx context.Context, ws int64) (map[string][]string, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT "user", keyword FROM recomm_keywords WHERE ws = $1 ORDER BY "user", keyword`, ws)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var u, k string
		if err := rows.Scan(&u, &k); err != nil {
			return nil, err
		}
		out[u] = append(out[u], k)
	}
	return out, rows.Err()
}
