// Package recomm is harkd's recommendation service (recommendation-service.md
// and DECISIONS §12). Its parts live in subpackages, by dependency:
//
//	rsql        RSQL filters and sorts: parse with positions, type-check
//	            against attributes, evaluate in memory, compile to SQL.
//	engines     the recommendation engines (content_based, hybrid, fm, isvd,
//	            popular, ensemble): pure Go, no storage or HTTP.
//	catalog     tables, attributes, items, users, interaction definitions and
//	            records, keywords, streaming CSV/JSON import; SQLite.
//	jobs        the per-workspace job queue (imports, trainings, batch
//	            recommendations), import sources, the model store, the
//	            trainer, the recommender and the batcher.
//	recommhttp  the endpoints under /v2/recomm and the assembly (New).
//
// Decisions taken where the documents are silent, beyond DECISIONS §12:
//
//   - Ids: tables 1-15 bytes, attributes and interactions 1-64, users and
//     items 1-255, none with the forbidden characters or control characters.
//     The table ids "users" and "tables" are reserved (they would make the
//     paths ambiguous). An item or interaction named like a literal path
//     segment ("batch", "items", "users") is shadowed on the overlapping GET
//     paths; the literal route wins.
//   - Values: timestamps are stored as UTC epoch milliseconds and answered as
//     ISO 8601 UTC strings; an integer timestamp in a request is epoch ms.
//     A JSON null in PATCH removes a value. An empty CSV cell is no value.
//   - Records: a record is (interaction, user, item, timestamp). Recording the
//     same key again adds the value for a cumulative interaction and replaces
//     it otherwise. Training folds the records of one pair per interaction:
//     the sum for cumulative interactions, the latest value otherwise.
//   - Training configuration: `before` is the lower bound and `after` the
//     upper bound of record timestamps, as the document words them.
//     popularFilter leaves the most-interacted items out of training. A
//     training in which some interaction had too few records ends
//     completed_with_errors; with none left it ends in error.
//   - Filters: a comparison on a missing value is false, `!=` included. On
//     list attributes `==`/`=in=` mean "some member matches" and `!=`/`=out=`
//     "no member matches". Sorts put missing values last.
//   - Imports: an element error skips the element (not-added list, capped at
//     10,000 entries, with the full count kept); a malformed file or a missing
//     id column ends the job in error, keeping the chunks (5,000 elements
//     each) committed before the failure. Interaction files must name
//     existing users and items.
//   - Jobs: cancelling a request that is no longer queued answers 400.
//     Cancelling a batch recommendation gives its count back to the quota.
//   - Models: one per engine and table, trained on the weighted mix of the
//     interactions, plus one per engine and interactionsFilter
//     (<engine>@<ids>). A recommendation naming interactionId is scored by
//     the model trained on that interaction alone when there is one, else by
//     the mixed model. interactionId must exist, and is required with
//     attributeId when the table has several interactions. A subject the
//     model knows nothing about gets an empty list.
package recomm
