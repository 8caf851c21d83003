package engines

import (
	"io"
	"time"
)

// Engine names, as used by the API and by Train.
const (
	ContentBased = "content_based"
	Hybrid       = "hybrid"
	FM           = "fm"
	ISVD         = "isvd"
	Popular      = "popular"
	Ensemble     = "ensemble"
)

// Event is one interaction by string id, used for a subject's history and for isvd updates.
type Event struct {
	UserID, ItemID string
	Value          float64
	Weight         float64
	Positive       bool
	Timestamp      int64 // UTC epoch milliseconds
	Type           string
}

// EntityAttrs holds the attribute values of one entity (the row form of Attributes).
type EntityAttrs struct {
	Numeric map[string]float64
	Tokens  map[string][]string
	Text    map[string]string
}

// Subject is the user or item a recommendation is for.
//
// When ID is known to the model, the trained representation is used. Otherwise the subject is cold:
// engines that can (hybrid, content_based, fm, isvd) build a representation from Attrs, Keywords (users)
// and History (the interactions the catalog knows about: for a user, events on items; for an item,
// events by users). Without anything usable the call returns ErrNoSignal.
// content_based builds every user profile at query time: a given History replaces the training
// interactions of a known user and given Keywords replace the stored warm-up keywords, so the catalog
// can pass the complete current history and keywords without counting anything twice.
type Subject struct {
	ID       string
	Attrs    EntityAttrs
	Keywords []string
	History  []Event
}

// Query shapes one recommendation call. The zero value asks for the default limit over every entity.
type Query struct {
	// Limit is the maximum number of results; 0 means 500.
	Limit int
	// Accept, when set, keeps only candidates for which it returns true. The caller folds into it the
	// RSQL filter, already-interacted exclusion and popularFilter. The subject itself is always left
	// out of similar-entity answers.
	Accept func(id string) bool
	// Multiplier, when set, multiplies each candidate's relevance (match/100) before ranking
	// (attributeId); the match it yields is capped at 100. Negative or NaN multipliers count as 0.
	Multiplier func(id string) float64
	// After, when set, returns the results that come after this id in the ranking (afterId paging).
	// An id that is not in the ranking yields an empty page.
	After string
	// Diversity in [0,1] re-ranks with maximal marginal relevance (hybrid only; others ignore it).
	Diversity float64
	// Among, when set, is the only entities the ranking considers: the engine walks its members and
	// never scores the others (a filter pruned before scoring). Accept still applies to the members.
	Among *Subset
}

// DefaultLimit and MaxLimit follow DECISIONS.md §12.
const (
	DefaultLimit = 500
	MaxLimit     = 1000
)

// Scored is one recommendation. Score is the engine's raw score (after the multiplier); Match is the
// 0-100 percent match described in each engine's documentation. Results come best first.
type Scored struct {
	ID    string
	Score float64
	Match float64
}

// Model is a trained engine. Models are safe for concurrent queries.
type Model interface {
	// Engine returns the engine name.
	Engine() string
	// Recommend ranks the entities of the answer side of kind for the subject (a user for
	// ItemsToUser and UsersToUser, an item otherwise).
	Recommend(kind Kind, subject Subject, q Query) ([]Scored, error)
	// Save writes the model in a compact binary form that Load reads back.
	Save(w io.Writer) error
}

// Updatable is implemented by models that fold new interactions in without retraining (isvd).
type Updatable interface {
	Update(events []Event) error
}

// TrainConfig tunes training. Zero values mean the engine's documented default.
type TrainConfig struct {
	Seed       int64 // random seed; training is deterministic given the seed and the dataset
	Workers    int   // goroutines; 0 means GOMAXPROCS
	Factors    int   // latent dimensions (hybrid 48, fm 32, isvd 32)
	Iterations int   // alternating steps (hybrid, 15) or epochs (fm, 10)
	// Regularization is the L2 penalty: hybrid's λ of the weighted rule λ·(1+interactions of the row),
	// fm's weight decay.
	Regularization float64
	// Alpha scales the confidence of implicit feedback in hybrid: c = 1 + Alpha*weight*value (1).
	Alpha float64
	// LogConfidence switches hybrid to c = 1 + Alpha*ln(1 + s/m), s the pair's net strength and m
	// the mean net strength of the positive pairs: heavy-tailed values such as play counts then no
	// longer let a few pairs dominate, whatever the unit of the values.
	LogConfidence bool
	// LearningRate is the Adagrad step of fm.
	LearningRate float64
	// AttributeWeight is β, how strongly attribute features pull the hybrid factors (0 = default 20,
	// negative = no attribute features, that is plain iALS).
	AttributeWeight float64
	// NeighbourWeight mixes item neighbours into hybrid's items-to-user scores (0 = none, at most 1;
	// see neighbours.go). The search chooses it per catalog.
	NeighbourWeight float64
	// HalfLife is the time decay of popular (0 = the span of the interactions, negative = no decay).
	HalfLife time.Duration
	// Now is the reference time for decay, epoch ms (0 = latest interaction in the dataset).
	Now int64
	// ItemAttributes and UserAttributes restrict the attributes used (nil = all, empty = none).
	ItemAttributes []string
	UserAttributes []string
}
