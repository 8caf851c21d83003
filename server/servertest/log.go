package servertest

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
)

// LogBuffer is a log sink for a platform's logger (Config.Logger: Logger),
// written from the server's goroutines and read by the test.
type LogBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Logger is a text logger writing into l.
func (l *LogBuffer) Logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Values returns, for each line logged with message msg so far, its value
// of key ("" on a line without it), in the order logged. Values are read
// up to the next space: for numbers, booleans and words.
func (l *LogBuffer) Values(msg, key string) []string {
	var out []string
	for _, line := range strings.Split(l.String(), "\n") {
		if strings.Contains(line, " msg="+msg+" ") || strings.HasSuffix(line, " msg="+msg) {
			_, v, _ := strings.Cut(line, " "+key+"=")
			v, _, _ = strings.Cut(v, " ")
			out = append(out, v)
		}
	}
	return out
}
