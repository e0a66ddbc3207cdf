package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math"
	"sort"
	"sync"
)

// vectorBatch is how many chunks go to the embedder at once.
const vectorBatch = 32

// vectors embeds the live chunks behind the text index, on its own
// goroutine: a change pokes it, it embeds what has no vector yet (the
// cache, keyed by model and chunk hash, spares unchanged text), and text
// queries never wait for it.
type vectors struct {
	emb  Embedder
	x    *Index
	wake chan struct{}
	stop chan struct{}
	done chan struct{}

	// running is held through a whole embedLive: the loop's and
	// waitVectors' never overlap (each would count the lag and embed the
	// same chunks).
	running sync.Mutex

	mu      sync.Mutex
	cache   map[string][]float32 // model + chunk hash -> vector
	docs    map[*doc][][]float32 // live docs' chunk vectors
	lag     int                  // live chunks without a vector
	lastErr string
}

func newVectors(x *Index, emb Embedder) *vectors {
	v := &vectors{emb: emb, x: x, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		cache: map[string][]float32{}, docs: map[*doc][][]float32{}}
	go v.loop()
	v.poke()
	return v
}

// poke says the snapshot changed.
func (v *vectors) poke() {
	select {
	case v.wake <- struct{}{}:
	default:
	}
}

func (v *vectors) close() {
	close(v.stop)
	<-v.done
}

func chunkHash(model string, text []byte) string {
	h := sha256.New()
	h.Write([]byte(model))
	h.Write([]byte{0})
	h.Write(text)
	return hex.EncodeToString(h.Sum(nil))
}

func (v *vectors) loop() {
	defer close(v.done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-v.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		select {
		case <-v.stop:
			return
		case <-v.wake:
		}
		v.embedLive(ctx)
	}
}

// embedLive brings the vectors up to the current snapshot.
func (v *vectors) embedLive(ctx context.Context) {
	v.running.Lock()
	defer v.running.Unlock()
	st := v.x.snap.Load()
	model := v.emb.Model()
	type pending struct {
		d    *doc
		c    int
		key  string
		text string
	}
	var todo []pending
	live := map[*doc]bool{}
	v.mu.Lock()
	st.eachLive(func(_, _ int, d *doc) {
		if !d.ranked || d.chunks.len() == 0 {
			return
		}
		live[d] = true
		vecs, ok := v.docs[d]
		if ok && !hasNil(vecs) {
			return
		}
		if !ok {
			vecs = make([][]float32, d.chunks.len())
		}
		starts := lineStarts(d.content)
		for i := range d.chunks.len() {
			if vecs[i] != nil {
				continue
			}
			c := d.chunks.at(i)
			text := lineSpan(d.content, starts, c.Line, c.EndLine)
			key := chunkHash(model, text)
			if vec, ok := v.cache[key]; ok {
				vecs[i] = vec
				continue
			}
			todo = append(todo, pending{d, i, key, d.path + "\n" + c.Scope + "\n" + string(text)})
		}
		v.docs[d] = vecs
	})
	for d := range v.docs {
		if !live[d] {
			delete(v.docs, d)
		}
	}
	v.lag = len(todo)
	v.mu.Unlock()
	for lo := 0; lo < len(todo); lo += vectorBatch {
		batch := todo[lo:min(lo+vectorBatch, len(todo))]
		texts := make([]string, len(batch))
		for i, p := range batch {
			texts[i] = p.text
		}
		vecs, err := v.emb.Embed(ctx, texts)
		v.mu.Lock()
		if err != nil {
			v.lastErr = err.Error()
			v.mu.Unlock()
			return // the next change tries again
		}
		v.lastErr = ""
		for i, p := range batch {
			vec := normalize(vecs[i])
			v.cache[p.key] = vec
			if dv, ok := v.docs[p.d]; ok {
				dv[p.c] = vec
			}
		}
		v.lag -= len(batch)
		v.mu.Unlock()
	}
}

func hasNil(vs [][]float32) bool {
	for _, v := range vs {
		if v == nil {
			return true
		}
	}
	return false
}

func normalize(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return v
	}
	s := float32(1 / math.Sqrt(n))
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x * s
	}
	return out
}

// status reports the model, how many live chunks wait for a vector, and
// the embedder's last error.
func (v *vectors) status() (model string, lag int, lastErr string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.emb.Model(), v.lag, v.lastErr
}

// rank embeds the query and returns the chunks nearest to it (cosine,
// brute force), best first; nil when the query cannot be embedded.
func (v *vectors) rank(ctx context.Context, st *snapshot, text string, keep func(*doc) bool) []chunkKey {
	qv, err := v.emb.Embed(ctx, []string{text})
	if err != nil || len(qv) != 1 {
		return nil
	}
	q := normalize(qv[0])
	type scored struct {
		k chunkKey
		s float32
	}
	var all []scored
	v.mu.Lock()
	defer v.mu.Unlock()
	for si, sg := range st.segs {
		for ci, cr := range sg.chunks {
			d := sg.docs[cr.doc]
			vecs, ok := v.docs[d]
			if !ok || !st.live(si, d.path) || !keep(d) {
				continue
			}
			vec := vecs[cr.chunk]
			if len(vec) != len(q) {
				continue
			}
			var dot float32
			for i := range q {
				dot += q[i] * vec[i]
			}
			all = append(all, scored{chunkKey{si, uint32(ci)}, dot})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].s > all[j].s })
	out := make([]chunkKey, 0, min(len(all), 1000))
	for _, s := range all[:min(len(all), 1000)] {
		out = append(out, s.k)
	}
	return out
}

// waitVectors embeds until every live chunk has its vector (tests,
// benchmarks), or the embedder fails.
func (x *Index) waitVectors(ctx context.Context) error {
	if x.vec == nil {
		return nil
	}
	for {
		x.vec.embedLive(ctx)
		_, lag, err := x.vec.status()
		if err != "" {
			return errors.New(err)
		}
		if lag == 0 {
			return ctx.Err()
		}
	}
}
