package dialogue

import "github.com/harkhq/hark/server/store"

// conversationMigrations are the schema steps of the "dialogue" component
// (store.Migrate): append-only, a released step is never edited.
var conversationMigrations = []store.Step{
	// state is the JSON of storedConversation; seen_ms drives the idle
	// expiry and the size bound.
	{SQLite: `CREATE TABLE dialogue_conversations (
		ref     INTEGER PRIMARY KEY,
		user_id INTEGER NOT NULL,
		seen_ms INTEGER NOT NULL,
		state   TEXT NOT NULL
	)`,
		Postgres: `CREATE TABLE dialogue_conversations (
		ref     BIGINT PRIMARY KEY,
		user_id BIGINT NOT NULL,
		seen_ms BIGINT NOT NULL,
		state   TEXT NOT NULL
	)`},
	store.Same(`CREATE INDEX dialogue_conversations_seen ON dialogue_conversations(seen_ms)`),
}
