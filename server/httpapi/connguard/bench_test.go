package connguard

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
)

// BenchmarkServe is a keep-alive GET over loopback, straight on the
// listener and behind the guard, in the same run: the guard's cost per
// request (a check of each write, a flag per read) and per connection.
func BenchmarkServe(b *testing.B) {
	for _, guarded := range []bool{false, true} {
		name := "plain"
		if guarded {
			name = "guarded"
		}
		b.Run(name, func(b *testing.B) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			serveOn := ln
			if guarded {
				serveOn = Listen(ln, Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			}
			hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"ok":true}`)
			})}
			go hs.Serve(serveOn)
			defer hs.Close()
			tr := &http.Transport{MaxIdleConnsPerHost: 64}
			defer tr.CloseIdleConnections()
			cl := &http.Client{Transport: tr}
			url := "http://" + ln.Addr().String() + "/"
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := cl.Get(url)
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			})
		})
	}
}
