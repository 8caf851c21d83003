package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// RecommService covers the recommendation service (RecommURL): the catalog
// of tables, attributes, items, users, interaction definitions and records,
// batch imports, training, recommendations and batch recommendations. Every
// call is signed with the workspace keys.
type RecommService struct{ c *Client }

// Engines a table may use and a training may build (DECISIONS §12);
// EngineEnsemble is only a table choice, once SetEnsemble has configured it.
const (
	EngineContentBased = "content_based"
	EngineHybrid       = "hybrid"
	EngineFM           = "fm"
	EngineISVD         = "isvd"
	EnginePopular      = "popular"
	EngineEnsemble     = "ensemble"
)

// Keys of a table's Engines: SlotDefault serves every path without its own key.
const (
	SlotDefault     = "default"
	SlotItemsToUser = "items-to-user"
	SlotUsersToUser = "users-to-user"
	SlotUsersToItem = "users-to-item"
	SlotItemsToItem = "items-to-item"
)

// Engines maps a slot (SlotDefault, SlotItemsToUser, ...) to an engine.
type Engines map[string]string

// Attribute types.
const (
	TypeInt          = "int"
	TypeDouble       = "double"
	TypeString       = "string"
	TypeBoolean      = "boolean"
	TypeTimestamp    = "timestamp"
	TypeSet          = "set"
	TypeCategory     = "category"
	TypeCategoryList = "categoryList"
	TypeImage        = "image"
	TypeImageList    = "imageList"
)

// Attribute is an attribute definition of a table's items or of the users.
// Values lists the allowed values of a category or categoryList attribute
// (none: any string).
type Attribute struct {
	AttributeID string   `json:"attributeId"`
	Type        string   `json:"type"`
	Indexed     bool     `json:"indexed,omitempty"`
	Values      []string `json:"values,omitempty"`
}

// NewTable is the body of a table creation. Engine is the deprecated form
// of Engines{SlotDefault: engine}.
type NewTable struct {
	TableID    string      `json:"tableId"`
	Engines    Engines     `json:"engines,omitempty"`
	Engine     string      `json:"engine,omitempty"`
	Attributes []Attribute `json:"attributes,omitempty"`
}

// Table is a table as GET /tables/{tableId} answers it. TrainConfig is
// filled only when asked for.
type Table struct {
	TableID     string           `json:"tableId"`
	Engines     Engines          `json:"engines"`
	Engine      string           `json:"engine,omitempty"`
	Ensemble    []EnsembleWeight `json:"ensemble,omitempty"`
	TrainConfig []TrainConfig    `json:"trainConfig,omitempty"`
	// DisplayAttribute names the items in lists: the attribute set with SetDisplayAttribute, else
	// title, name or the first string attribute; "" when the ids are all there is (harkd's addition).
	DisplayAttribute string `json:"displayAttribute,omitempty"`
}

// TrainConfig lists the last trainings of one interaction ("" for a
// training on all interactions).
type TrainConfig struct {
	InteractionID string         `json:"interactionId"`
	EngineConfig  []EngineConfig `json:"engineConfig"`
}

// EngineConfig is one completed training: its engine, when it finished
// (local date-time YYYY-MM-DDThh:mm:ss.sss, see Finished) and the
// configuration it was trained with.
type EngineConfig struct {
	Engine        string         `json:"engine"`
	Timestamp     string         `json:"timestamp"`
	Configuration map[string]any `json:"configuration"`
}

// trainTimestampLayout is the wire form of EngineConfig.Timestamp.
const trainTimestampLayout = "2006-01-02T15:04:05.000"

// Finished parses Timestamp; the server writes it in UTC.
func (e EngineConfig) Finished() (time.Time, error) {
	return time.ParseInLocation(trainTimestampLayout, e.Timestamp, time.UTC)
}

// EnsembleWeight is one engine of an ensemble and its weight.
type EnsembleWeight struct {
	Engine string  `json:"engine"`
	Value  float64 `json:"value"`
}

// Interaction types and polarities.
const (
	InteractionUnary       = "unary"
	InteractionBinary      = "binary"
	InteractionCategorical = "categorical"
	InteractionContinuous  = "continuous"
	PolarityPositive       = "positive"
	PolarityNegative       = "negative"
)

// Interaction is an interaction definition of a table. Nil bounds take the
// defaults of the type; definitions read back always carry both bounds (an
// open end of a continuous range as ±math.MaxFloat64).
type Interaction struct {
	InteractionID string   `json:"interactionId"`
	Weight        float64  `json:"weight"`
	Cumulative    bool     `json:"cumulative"`
	Type          string   `json:"type"`
	Polarity      string   `json:"polarity,omitempty"`
	MinValue      *float64 `json:"minValue,omitempty"`
	MaxValue      *float64 `json:"maxValue,omitempty"`
}

// InteractionPatch changes an interaction definition: a new weight, a new
// id, or both.
type InteractionPatch struct {
	Weight        *float64 `json:"weight,omitempty"`
	InteractionID string   `json:"interactionId,omitempty"`
}

// ListQuery pages and filters the listings of items, users and
// interaction records. Zero fields are not sent (the server's default
// limit is 500, at most 1000).
type ListQuery struct {
	Filter  string // RSQL, e.g. genre==rock;year=gt=2000
	Sort    string // RSQL sort, e.g. year==DESC
	Limit   int
	AfterID string // the last id of the current page
	// Search keeps entities whose display attribute or id contains it, in
	// any case (harkd's addition).
	Search string
}

func (q ListQuery) values() url.Values {
	v := url.Values{}
	setNonEmpty(v, "search", q.Search)
	setNonEmpty(v, "filter", q.Filter)
	setNonEmpty(v, "sort", q.Sort)
	setNonEmpty(v, "afterId", q.AfterID)
	if q.Limit != 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	return v
}

func setNonEmpty(v url.Values, key, value string) {
	if value != "" {
		v.Set(key, value)
	}
}

// NewRecord is the body of an interaction record. A zero Timestamp (UTC
// epoch milliseconds) means now; Value is required except for unary
// interactions.
type NewRecord struct {
	Timestamp int64    `json:"timestamp,omitempty"`
	Value     *float64 `json:"value,omitempty"`
}

// Record is one interaction record of a listing: ItemID in a user's
// listing, UserID in an item's.
type Record struct {
	UserID    string  `json:"userId,omitempty"`
	ItemID    string  `json:"itemId,omitempty"`
	Timestamp int64   `json:"timestamp"`
	Value     float64 `json:"value"`
}

// call sends a signed request to the recommendation service; body (when not
// nil) goes as JSON and the answer, when out is not nil, is decoded into it.
func (s *RecommService) call(ctx context.Context, method, path string, query url.Values, body, out any) error {
	r := &request{method: method, service: serviceRecomm, path: path, query: query, auth: authSigned}
	if body != nil {
		b, n, err := jsonBody(body)
		if err != nil {
			return err
		}
		r.body, r.length, r.contentType = b, n, "application/json"
	}
	return s.c.doJSON(ctx, r, out)
}

// ---- tables

// CreateTable creates a table with its engines and first attributes.
func (s *RecommService) CreateTable(ctx context.Context, t NewTable) error {
	return s.call(ctx, http.MethodPost, "/tables", nil, t, nil)
}

// SetEngines replaces the engines of a table (PATCH /tables/{tableId}).
func (s *RecommService) SetEngines(ctx context.Context, tableID string, engines Engines) error {
	return s.call(ctx, http.MethodPatch, pathOf("tables", tableID), nil, map[string]Engines{"engines": engines}, nil)
}

// Table reads a table; trainConfig asks for its completed trainings too.
func (s *RecommService) Table(ctx context.Context, tableID string, trainConfig bool) (Table, error) {
	var q url.Values
	if trainConfig {
		q = url.Values{"trainConfig": {"true"}}
	}
	var out Table
	err := s.call(ctx, http.MethodGet, pathOf("tables", tableID), q, nil, &out)
	return out, err
}

// Tables lists the table ids of the workspace.
func (s *RecommService) Tables(ctx context.Context) ([]string, error) {
	var out []string
	err := s.call(ctx, http.MethodGet, "/tables", nil, nil, &out)
	return out, err
}

// DeleteTable deletes a table with its attributes, items, interactions,
// requests and models.
func (s *RecommService) DeleteTable(ctx context.Context, tableID string) error {
	return s.call(ctx, http.MethodDelete, pathOf("tables", tableID), nil, nil, nil)
}

// ---- attributes: the item attributes of a table live under /{tableId},
// the user attributes under /users.

func (s *RecommService) addAttributes(ctx context.Context, scope string, attrs []Attribute) error {
	if attrs == nil {
		attrs = []Attribute{}
	}
	return s.call(ctx, http.MethodPost, pathOf(scope, "attributes"), nil, map[string][]Attribute{"attributes": attrs}, nil)
}

func (s *RecommService) addAttributeValues(ctx context.Context, scope, attributeID string, values []string) error {
	if values == nil {
		values = []string{}
	}
	return s.call(ctx, http.MethodPatch, pathOf(scope, "attributes", attributeID), nil, map[string][]string{"values": values}, nil)
}

func (s *RecommService) attribute(ctx context.Context, scope, attributeID string) (Attribute, error) {
	var out Attribute
	err := s.call(ctx, http.MethodGet, pathOf(scope, "attributes", attributeID), nil, nil, &out)
	return out, err
}

func (s *RecommService) attributes(ctx context.Context, scope string) ([]Attribute, error) {
	var out []Attribute
	err := s.call(ctx, http.MethodGet, pathOf(scope, "attributes"), nil, nil, &out)
	return out, err
}

func (s *RecommService) deleteAttribute(ctx context.Context, scope, attributeID string) error {
	return s.call(ctx, http.MethodDelete, pathOf(scope, "attributes", attributeID), nil, nil, nil)
}

// AddAttributes defines item attributes of a table.
func (s *RecommService) AddAttributes(ctx context.Context, tableID string, attrs ...Attribute) error {
	return s.addAttributes(ctx, tableID, attrs)
}

// AddAttributeValues adds allowed values to a categorical item attribute.
func (s *RecommService) AddAttributeValues(ctx context.Context, tableID, attributeID string, values ...string) error {
	return s.addAttributeValues(ctx, tableID, attributeID, values)
}

// Attribute reads an item attribute.
func (s *RecommService) Attribute(ctx context.Context, tableID, attributeID string) (Attribute, error) {
	return s.attribute(ctx, tableID, attributeID)
}

// Attributes lists the item attributes of a table (expiration included).
func (s *RecommService) Attributes(ctx context.Context, tableID string) ([]Attribute, error) {
	return s.attributes(ctx, tableID)
}

// DeleteAttribute removes an item attribute and its values.
func (s *RecommService) DeleteAttribute(ctx context.Context, tableID, attributeID string) error {
	return s.deleteAttribute(ctx, tableID, attributeID)
}

// AddUserAttributes defines user attributes.
func (s *RecommService) AddUserAttributes(ctx context.Context, attrs ...Attribute) error {
	return s.addAttributes(ctx, "users", attrs)
}

// AddUserAttributeValues adds allowed values to a categorical user attribute.
func (s *RecommService) AddUserAttributeValues(ctx context.Context, attributeID string, values ...string) error {
	return s.addAttributeValues(ctx, "users", attributeID, values)
}

// UserAttribute reads a user attribute.
func (s *RecommService) UserAttribute(ctx context.Context, attributeID string) (Attribute, error) {
	return s.attribute(ctx, "users", attributeID)
}

// UserAttributes lists the user attributes.
func (s *RecommService) UserAttributes(ctx context.Context) ([]Attribute, error) {
	return s.attributes(ctx, "users")
}

// DeleteUserAttribute removes a user attribute and its values.
func (s *RecommService) DeleteUserAttribute(ctx context.Context, attributeID string) error {
	return s.deleteAttribute(ctx, "users", attributeID)
}

// ---- interaction definitions

// CreateInteraction defines an interaction of a table.
func (s *RecommService) CreateInteraction(ctx context.Context, tableID string, def Interaction) error {
	return s.call(ctx, http.MethodPost, pathOf(tableID, "interactions"), nil, def, nil)
}

// PatchInteraction changes the weight or the id of an interaction.
func (s *RecommService) PatchInteraction(ctx context.Context, tableID, interactionID string, p InteractionPatch) error {
	return s.call(ctx, http.MethodPatch, pathOf(tableID, "interactions", interactionID), nil, p, nil)
}

// Interaction reads an interaction definition.
func (s *RecommService) Interaction(ctx context.Context, tableID, interactionID string) (Interaction, error) {
	var out Interaction
	err := s.call(ctx, http.MethodGet, pathOf(tableID, "interactions", interactionID), nil, nil, &out)
	return out, err
}

// Interactions lists the interaction definitions of a table.
func (s *RecommService) Interactions(ctx context.Context, tableID string) ([]Interaction, error) {
	var out []Interaction
	err := s.call(ctx, http.MethodGet, pathOf(tableID, "interactions"), nil, nil, &out)
	return out, err
}

// DeleteInteraction removes an interaction definition and its records.
func (s *RecommService) DeleteInteraction(ctx context.Context, tableID, interactionID string) error {
	return s.call(ctx, http.MethodDelete, pathOf(tableID, "interactions", interactionID), nil, nil, nil)
}

// ---- items and users: an entity is its id plus attribute values; the
// values are JSON values (numbers come back as float64, sets and lists as
// []any, timestamps as ISO 8601 UTC strings).

// entityBody is the id plus the values, without changing the caller's map.
func entityBody(idKey, id string, values map[string]any) map[string]any {
	body := make(map[string]any, len(values)+1)
	for k, v := range values {
		body[k] = v
	}
	if id != "" {
		body[idKey] = id
	}
	return body
}

func attributesQuery(q ListQuery, attributes []string) url.Values {
	v := q.values()
	v.Set("attributes", "("+strings.Join(attributes, ",")+")")
	return v
}

// CreateItem adds one item to a table.
func (s *RecommService) CreateItem(ctx context.Context, tableID, itemID string, values map[string]any) error {
	return s.call(ctx, http.MethodPost, pathOf(tableID, "items"), nil, entityBody("itemId", itemID, values), nil)
}

// Item reads an item: itemId and its attribute values.
func (s *RecommService) Item(ctx context.Context, tableID, itemID string) (map[string]any, error) {
	var out map[string]any
	err := s.call(ctx, http.MethodGet, pathOf(tableID, "items", itemID), nil, nil, &out)
	return out, err
}

// PatchItem changes some attribute values of an item.
func (s *RecommService) PatchItem(ctx context.Context, tableID, itemID string, values map[string]any) error {
	return s.call(ctx, http.MethodPatch, pathOf(tableID, "items", itemID), nil, entityBody("", "", values), nil)
}

// DeleteItem removes an item with its values and interaction records.
func (s *RecommService) DeleteItem(ctx context.Context, tableID, itemID string) error {
	return s.call(ctx, http.MethodDelete, pathOf(tableID, "items", itemID), nil, nil, nil)
}

// Items lists item ids of a table.
func (s *RecommService) Items(ctx context.Context, tableID string, q ListQuery) ([]string, error) {
	var out []string
	err := s.call(ctx, http.MethodGet, pathOf(tableID, "items"), q.values(), nil, &out)
	return out, err
}

// ItemsWithAttributes lists items as itemId plus the named attributes.
func (s *RecommService) ItemsWithAttributes(ctx context.Context, tableID string, q ListQuery, attributes ...string) ([]map[string]any, error) {
	var out []map[string]any
	err := s.call(ctx, http.MethodGet, pathOf(tableID, "items"), attributesQuery(q, attributes), nil, &out)
	return out, err
}

// CreateUser adds a user.
func (s *RecommService) CreateUser(ctx context.Context, userID string, values map[string]any) error {
	return s.call(ctx, http.MethodPost, "/users", nil, entityBody("userId", userID, values), nil)
}

// User reads a user: userId and its attribute values.
func (s *RecommService) User(ctx context.Context, userID string) (map[string]any, error) {
	var out map[string]any
	err := s.call(ctx, http.MethodGet, pathOf("users", userID), nil, nil, &out)
	return out, err
}

// PatchUser changes some attribute values of a user.
func (s *RecommService) PatchUser(ctx context.Context, userID string, values map[string]any) error {
	return s.call(ctx, http.MethodPatch, pathOf("users", userID), nil, entityBody("", "", values), nil)
}

// Users lists user ids.
func (s *RecommService) Users(ctx context.Context, q ListQuery) ([]string, error) {
	var out []string
	err := s.call(ctx, http.MethodGet, "/users", q.values(), nil, &out)
	return out, err
}

// UsersWithAttributes lists users as userId plus the named attributes.
func (s *RecommService) UsersWithAttributes(ctx context.Context, q ListQuery, attributes ...string) ([]map[string]any, error) {
	var out []map[string]any
	err := s.call(ctx, http.MethodGet, "/users", attributesQuery(q, attributes), nil, &out)
	return out, err
}

// DeleteAllUsers deletes every user with their values and interactions.
func (s *RecommService) DeleteAllUsers(ctx context.Context) error {
	return s.call(ctx, http.MethodDelete, "/users", nil, nil, nil)
}

// DeleteUser deletes a user with their values and interactions.
func (s *RecommService) DeleteUser(ctx context.Context, userID string) error {
	return s.call(ctx, http.MethodDelete, pathOf("users", userID), nil, nil, nil)
}

// ---- user keywords

type keywordsBody struct {
	Keywords []string `json:"keywords"`
}

func keywordList(keywords []string) keywordsBody {
	if keywords == nil {
		keywords = []string{}
	}
	return keywordsBody{Keywords: keywords}
}

// AddKeywords adds keywords to a user (for users without interactions).
func (s *RecommService) AddKeywords(ctx context.Context, userID string, keywords ...string) error {
	return s.call(ctx, http.MethodPost, pathOf("users", userID, "warmup"), nil, keywordList(keywords), nil)
}

// Keywords lists a user's keywords.
func (s *RecommService) Keywords(ctx context.Context, userID string) ([]string, error) {
	var out []string
	err := s.call(ctx, http.MethodGet, pathOf("users", userID, "warmup", "keywords"), nil, nil, &out)
	return out, err
}

// DeleteAllKeywords deletes every keyword of a user.
func (s *RecommService) DeleteAllKeywords(ctx context.Context, userID string) error {
	return s.call(ctx, http.MethodDelete, pathOf("users", userID, "warmup", "keywords"), nil, nil, nil)
}

// DeleteKeywords deletes some keywords of a user (DELETE
// /users/{userId}/warmup with a JSON body, DECISIONS §12).
func (s *RecommService) DeleteKeywords(ctx context.Context, userID string, keywords ...string) error {
	return s.call(ctx, http.MethodDelete, pathOf("users", userID, "warmup"), nil, keywordList(keywords), nil)
}

// ---- interaction records

// AddRecord records that a user interacted with an item.
func (s *RecommService) AddRecord(ctx context.Context, tableID, interactionID, userID, itemID string, rec NewRecord) error {
	return s.call(ctx, http.MethodPost, pathOf(tableID, "interactions", interactionID, userID, itemID), nil, rec, nil)
}

// DeleteRecord deletes the record of user, item and timestamp (UTC epoch
// milliseconds).
func (s *RecommService) DeleteRecord(ctx context.Context, tableID, interactionID, userID, itemID string, timestamp int64) error {
	return s.call(ctx, http.MethodDelete, pathOf(tableID, "interactions", interactionID, userID, itemID), nil,
		map[string]int64{"timestamp": timestamp}, nil)
}

// ItemRecords lists the records of one interaction on an item (UserID set).
func (s *RecommService) ItemRecords(ctx context.Context, tableID, itemID, interactionID string, q ListQuery) ([]Record, error) {
	var out []Record
	err := s.call(ctx, http.MethodGet, pathOf(tableID, "items", itemID, interactionID), q.values(), nil, &out)
	return out, err
}

// UserRecords lists the records of one interaction of a user (ItemID set).
func (s *RecommService) UserRecords(ctx context.Context, tableID, userID, interactionID string, q ListQuery) ([]Record, error) {
	var out []Record
	err := s.call(ctx, http.MethodGet, pathOf(tableID, "users", userID, interactionID), q.values(), nil, &out)
	return out, err
}
