package dialogue

// conversationMigrations are the schema steps of the "dialogue" component
// (store.Migrate): append-only, a released step is never edited.
var conversationMigrations = []string{
	// state is the JSON of storedConversation; seen_ms drives the idle
	// expiry and the size bound.
	`CREATE TABLE dialogue_conversations (
		ref     INTEGER PRIMARY KEY,
		user_id INTEGER NOT NULL,
		seen_ms INTEGER NOT NULL,
		state   TEXT NOT NULL
	)`,
	`CREATE INDEX dialogue_conversations_seen ON dialogue_conversations(seen_ms)`,
}
