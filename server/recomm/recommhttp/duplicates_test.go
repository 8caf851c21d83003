package recommhttp

import (
	"encoding/json"
	"testing"
)

// The vendor's published tutorial records it: an interactions file whose
// rows repeat stored interactions (same user, item, interaction type and
// timestamp) ends completed_with_errors, the repeats listed in
// interactionsNotAdded as EntityAlreadyExistsException, the stored values
// untouched (DECISIONS §12). harkd used to merge them silently.
func TestImportDuplicatesOfStoredInteractions(t *testing.T) {
	c, st, _ := newServer(t)
	c.want(201, "POST", "/tables", map[string]any{"tableId": "charity"})
	c.want(201, "POST", "/charity/interactions", map[string]any{"interactionId": "donation", "weight": 1,
		"cumulative": true, "type": "continuous", "minValue": 0})
	for _, u := range []string{"d1", "d2"} {
		c.want(201, "POST", "/users", map[string]any{"userId": u})
	}
	c.want(201, "POST", "/charity/items", map[string]any{"itemId": "school"})
	c.want(201, "POST", "/charity/interactions/donation/d1/school", map[string]any{"timestamp": 1000, "value": 50})

	st.files["42//donations.csv"] = []byte("userId,itemId,timestamp,interactionName,value\n" +
		"d1,school,1000,donation,50\n" + // the stored donation again
		"d2,school,1000,donation,20\n" +
		"d1,school,2000,donation,10\n")
	var acc map[string]any
	json.Unmarshal(c.want(202, "POST", "/charity/interactions/batch", map[string]any{"url": "storage:///donations.csv", "format": "csv"}), &acc)
	s := c.wait("/charity/interactions/batch/" + acc["requestId"].(string))
	list, _ := s["interactionsNotAdded"].([]any)
	if s["status"] != "completed_with_errors" || len(list) != 1 {
		t.Fatalf("import status = %v", s)
	}
	entry := list[0].(map[string]any)
	if entry["code"] != "EntityAlreadyExistsException" || entry["errorId"] != "d1/school" || entry["message"] == "" {
		t.Errorf("not-added entry = %v", entry)
	}
	var recs []map[string]any
	json.Unmarshal(c.want(200, "GET", "/charity/users/d1/donation", nil), &recs)
	total := 0.0
	for _, r := range recs {
		total += r["value"].(float64)
	}
	if len(recs) != 2 || total != 60 {
		t.Errorf("d1's donations after the import = %v, want 50 and 10 (the repeat not merged)", recs)
	}
}
