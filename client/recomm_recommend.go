package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// RecommendOptions are the query parameters of a recommendation; zero
// values are not sent.
type RecommendOptions struct {
	Filter string // RSQL on the returned entities
	// InteractionFilter is RSQL of interactionId==true|false terms on past
	// interactions; only for ItemsForUser and UsersForItem.
	InteractionFilter string
	PopularFilter     string // N or N% of the most interacted left out
	InteractionID     string // the main interaction for scoring
	AttributeID       string // numeric attribute multiplying the score
	Limit             int    // server default 500, at most 1000
	AfterID           string // the last id of the current page
	Sort              string // RSQL sort, e.g. year==DESC
	Diversity         float64
	Engine            string // overrides the table's engine for this request
	// Attributes are returned with each entry, in Recommendation.Values
	// (harkd's addition), e.g. the table's DisplayAttribute.
	Attributes []string
	// Explain asks for the past items behind each item recommended to a
	// user (Recommendation.Because), where the engine can say.
	Explain bool
}

func (o RecommendOptions) values() url.Values {
	v := url.Values{}
	setNonEmpty(v, "filter", o.Filter)
	setNonEmpty(v, "interactionFilter", o.InteractionFilter)
	setNonEmpty(v, "popularFilter", o.PopularFilter)
	setNonEmpty(v, "interactionId", o.InteractionID)
	setNonEmpty(v, "attributeId", o.AttributeID)
	setNonEmpty(v, "afterId", o.AfterID)
	setNonEmpty(v, "sort", o.Sort)
	setNonEmpty(v, "engine", o.Engine)
	if o.Limit != 0 {
		v.Set("limit", strconv.Itoa(o.Limit))
	}
	if len(o.Attributes) > 0 {
		v.Set("attributes", "("+strings.Join(o.Attributes, ",")+")")
	}
	if o.Explain {
		v.Set("explain", "true")
	}
	if o.Diversity != 0 {
		v.Set("diversity", strconv.FormatFloat(o.Diversity, 'g', -1, 64))
	}
	return v
}

// Recommendation is one entry of an answer: ItemID or UserID as the path
// returns, and Match from 0 to 100.
type Recommendation struct {
	ItemID string  `json:"itemId,omitempty"`
	UserID string  `json:"userId,omitempty"`
	Match  float64 `json:"match"`
	// Values holds the attributes asked for with RecommendOptions.Attributes.
	Values map[string]any `json:"-"`
	// Because lists the subject's past items most like this one, with
	// their items-to-item match, when RecommendOptions.Explain asked.
	Because []Reason `json:"because,omitempty"`
}

// Reason is one past item behind a recommendation.
type Reason struct {
	ItemID string  `json:"itemId"`
	Match  float64 `json:"match"`
}

// UnmarshalJSON keeps the entry's attribute values apart from its fixed fields.
func (r *Recommendation) UnmarshalJSON(b []byte) error {
	type plain Recommendation
	if err := json.Unmarshal(b, (*plain)(r)); err != nil {
		return err
	}
	var all map[string]any
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	for _, k := range []string{"itemId", "userId", "match", "because"} {
		delete(all, k)
	}
	if len(all) > 0 {
		r.Values = all
	}
	return nil
}

// ID is the recommended entity, item or user.
func (r Recommendation) ID() string {
	if r.ItemID != "" {
		return r.ItemID
	}
	return r.UserID
}

func (s *RecommService) recommend(ctx context.Context, tableID, subjectKind, subjectID, want string, opt RecommendOptions) ([]Recommendation, error) {
	var out []Recommendation
	err := s.call(ctx, http.MethodGet, pathOf(tableID, subjectKind, subjectID, want), opt.values(), nil, &out)
	return out, err
}

// ItemsForUser recommends items to a user.
func (s *RecommService) ItemsForUser(ctx context.Context, tableID, userID string, opt RecommendOptions) ([]Recommendation, error) {
	return s.recommend(ctx, tableID, "users", userID, "items", opt)
}

// UsersForUser returns users similar to a user.
func (s *RecommService) UsersForUser(ctx context.Context, tableID, userID string, opt RecommendOptions) ([]Recommendation, error) {
	return s.recommend(ctx, tableID, "users", userID, "users", opt)
}

// ItemsForItem returns items related to an item.
func (s *RecommService) ItemsForItem(ctx context.Context, tableID, itemID string, opt RecommendOptions) ([]Recommendation, error) {
	return s.recommend(ctx, tableID, "items", itemID, "items", opt)
}

// UsersForItem returns users likely to be interested in an item.
func (s *RecommService) UsersForItem(ctx context.Context, tableID, itemID string, opt RecommendOptions) ([]Recommendation, error) {
	return s.recommend(ctx, tableID, "items", itemID, "users", opt)
}
