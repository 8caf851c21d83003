package recommend

import (
	"log/slog"
	"slices"
	"strings"

	"github.com/harkhq/hark/server/recomm/catalog"
	"github.com/harkhq/hark/server/recomm/engines"
)

// Online updates, engine by engine (README "Which engines learn online"):
//   - isvd folds every interaction recorded one at a time into the model at once (Learn), for known
//     and new users and items alike; the folded model is saved in the background (Models.SaveSoon),
//     so it survives a restart.
//   - content_based builds every user profile at query time from the current history: every record
//     counts at once.
//   - hybrid and fm fold a user or item the model does not know in from its current history at query
//     time; one the model was trained on keeps its trained factors until the next training.
//   - popular changes only with a training. Bulk imports reach every engine with a training.

// Learn folds one recorded interaction into the table's models that learn online, as the change it
// makes to the value training would use for the pair (see catalog.Catalog.Recorded, which it is
// wired to): rating an item again replaces the rating, as a training would. A model trained on a subset of interactions (interactionsFilter) learns
// only from those. With Watch running, every other harkd process folds it in too.
func (r *Recommender) Learn(ws int64, table string, e catalog.Event) {
	if e.Value == 0 {
		return // nothing changes for training either (an older record, or the same value again)
	}
	ev := engines.Event{UserID: e.UserID, ItemID: e.ItemID, Value: e.Value, Weight: e.Def.Weight,
		Positive: e.Def.Polarity != catalog.Negative, Timestamp: e.Timestamp, Type: e.Def.ID}
	if r.fold(ws, table, ev, true) { // tables without online models (most) cost the others nothing
		r.Models.announceEvent(ws, table, ev)
	}
}

// fold folds an event into the table's models that learn online and reports whether it has any. Only
// the process where the interaction was recorded saves the models (save): the others fold in what
// it announces and load its file only at their next resync.
func (r *Recommender) fold(ws int64, table string, ev engines.Event, save bool) (online bool) {
	for name, m := range r.Models.Table(ws, table) {
		u, ok := m.(engines.Updatable)
		if !ok {
			continue
		}
		if _, only, filtered := strings.Cut(name, "@"); filtered && !slices.Contains(strings.Split(only, "+"), ev.Type) {
			continue
		}
		online = true
		set := r.Models.cands.get(m)
		var refresh func()
		switch {
		case set == nil:
		case engines.FoldsItem(m, ev.ItemID):
			// the item's vector changes, and with it every user's scores
			epoch := set.invalidateAll()
			refresh = func() { r.refill(set, epoch) }
		default:
			done := set.invalidate(ev.UserID)
			refresh = func() {
				records, stamp, epoch := done()
				if err := set.compute(ev.UserID, records+1, stamp, epoch); err != nil {
					slog.Warn("recomm: refreshing candidates failed", "table", table, "model", name, "err", err)
				}
			}
		}
		err := u.Update([]engines.Event{ev})
		if refresh != nil {
			refresh() // after a failed update too: the list was dropped
		}
		if err != nil {
			slog.Warn("recomm: online update failed", "table", table, "model", name, "err", err)
			continue
		}
		if save {
			r.Models.SaveSoon(ws, table, name, m, func(err error) {
				slog.Warn("recomm: saving an updated model failed", "table", table, "model", name, "err", err)
			})
		}
	}
	return online
}
