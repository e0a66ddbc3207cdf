package monitor

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/core/coretest"
)

// BenchmarkRoundTrip measures a tool.pre_execute round trip through the
// monitor door (decision durable before the reply) against a bare net/http
// handler on loopback that answers {"block":false}, in the same run, with 1
// and 64 concurrent clients. It reports p50/p99 of both and their ratios.
func BenchmarkRoundTrip(b *testing.B) {
	for _, clients := range []int{1, 64} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			c := coretest.New(b, coretest.Options{})
			door := httptest.NewServer(NewHandler(c, nil))
			defer door.Close()
			bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.ReadAll(r.Body)
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"block":false}` + "\n"))
			}))
			defer bare.Close()
			tr := &http.Transport{MaxIdleConnsPerHost: clients * 2, MaxConnsPerHost: clients * 2}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
			body := []byte(`{"type":"tool.pre_execute","timestamp":1703123456789,"project":"p","directory":"/home/dev/proj","worktree":"/home/dev/proj","tool":"bash","sessionID":"bench","callID":"c","args":{"command":"go test ./..."}}`)

			run := func(url string, n int) []time.Duration {
				lat := make([]time.Duration, n)
				var wg sync.WaitGroup
				per := (n + clients - 1) / clients
				for w := 0; w < clients; w++ {
					lo, hi := w*per, min((w+1)*per, n)
					if lo >= hi {
						break
					}
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := lo; i < hi; i++ {
							start := time.Now()
							resp, err := client.Post(url, "application/json", bytes.NewReader(body))
							if err != nil {
								b.Error(err)
								return
							}
							_, _ = io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
							lat[i] = time.Since(start)
						}
					}()
				}
				wg.Wait()
				return lat
			}
			// Warm up connections and the log.
			run(bare.URL+Path, clients*4)
			run(door.URL+Path, clients*4)
			b.ResetTimer()
			var base, mon []time.Duration
			// Interleave in chunks so both see the same machine conditions.
			for done := 0; done < b.N; {
				n := min(b.N-done, 200)
				base = append(base, run(bare.URL+Path, n)...)
				mon = append(mon, run(door.URL+Path, n)...)
				done += n
			}
			b.StopTimer()
			bp50, bp99 := pct(base, 50), pct(base, 99)
			mp50, mp99 := pct(mon, 50), pct(mon, 99)
			b.ReportMetric(float64(bp50.Microseconds()), "bare-p50-µs")
			b.ReportMetric(float64(bp99.Microseconds()), "bare-p99-µs")
			b.ReportMetric(float64(mp50.Microseconds()), "warden-p50-µs")
			b.ReportMetric(float64(mp99.Microseconds()), "warden-p99-µs")
			b.ReportMetric(float64(mp50)/float64(bp50), "p50-ratio")
			b.ReportMetric(float64(mp99)/float64(bp99), "p99-ratio")
		})
	}
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := (len(s) - 1) * p / 100
	return s[i]
}
