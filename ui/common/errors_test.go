package common

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/client"
)

func TestDescribeSpeaksInSentencesWithAHint(t *testing.T) {
	dead, err := client.New(client.Config{BaseURL: "http://127.0.0.1:1/v2", PublicKey: "pk", PrivateKey: "sk", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, dialErr := dead.Surveys.List(context.Background())
	cases := []struct {
		err        error
		want       string
		notContain []string
	}{
		{dialErr, "hark cannot reach the platform at 127.0.0.1:1: is harkd running?", []string{"dial", "/v2", "connect:"}},
		{&client.APIError{Status: 500, Code: "InternalError", Description: "disk full"}, "the platform failed: disk full (details in its log)", []string{"500"}},
		{&client.APIError{Status: 404, Code: "EntityNotFound"}, "entity not found", []string{"404", "EntityNotFound"}},
		{&client.APIError{Status: 429, Code: "TooManyRequests", Description: "slow down", RetryAfter: 3 * time.Second}, "slow down (try again in 3s)", nil},
		{fmt.Errorf("GET /v2/items: the server answered malformed JSON: %w", fmt.Errorf("x")), "the platform answered something hark does not understand", []string{"/v2", "GET"}},
		{context.Canceled, "cancelled", nil},
	}
	for _, c := range cases {
		got := Describe(c.err)
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("Describe(%v) = %q, want %q", c.err, got, c.want)
		}
		for _, bad := range c.notContain {
			if strings.Contains(got, bad) {
				t.Errorf("Describe(%v) = %q shows %q", c.err, got, bad)
			}
		}
	}
}
