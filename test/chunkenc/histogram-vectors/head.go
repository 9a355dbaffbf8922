//go:build ignore

// Copy to cmd/head/main.go of a module holding Prometheus v2.42.0 (README.md).

// Drives Prometheus v2.42.0's chunkenc the way its head (tsdb/head_append.go,
// memSeries.appendHistogram / appendFloatHistogram / appendPreprocessor)
// does, for one series, and reports the chunks it closes. The glue below is
// written from reading head_append.go; every decision it delegates
// (Appendable, AppendableGauge, Recode, RecodeHistogram, the appenders) is
// the real chunkenc code.
package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"strconv"

	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/tsdb/chunkenc"
)

type span [2]int64

type sample struct {
	T     string   `json:"t"`
	Float bool     `json:"float"`
	Hint  int      `json:"hint"`
	S     int64    `json:"schema"`
	ZT    string   `json:"zt"`
	ZC    string   `json:"zc"`
	C     string   `json:"c"`
	Sum   string   `json:"sum"`
	PS    []span   `json:"ps"`
	NS    []span   `json:"ns"`
	PB    []string `json:"pb"`
	NB    []string `json:"nb"`
}

type tc struct {
	Name       string   `json:"name"`
	ChunkRange int64    `json:"chunkRange"`
	Samples    []sample `json:"samples"`
}

type chunkOut struct {
	Enc  int    `json:"enc"`
	MinT int64  `json:"minT"`
	MaxT int64  `json:"maxT"`
	Hex  string `json:"hex"`
}

type result struct {
	Appended bool `json:"appended"`
	Created  bool `json:"created"`
	Closed   int  `json:"closed"`
}

type out struct {
	Name    string     `json:"name"`
	Closed  []chunkOut `json:"closed"`
	Open    *chunkOut  `json:"open"`
	Results []result   `json:"results"`
}

func bits(s string) float64 {
	u, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		panic(err)
	}
	return math.Float64frombits(u)
}
func spans(in []span) []histogram.Span {
	var o []histogram.Span
	for _, s := range in {
		o = append(o, histogram.Span{Offset: int32(s[0]), Length: uint32(s[1])})
	}
	return o
}

type series struct {
	chunk      chunkenc.Chunk
	app        chunkenc.Appender
	minT, maxT int64
	nextAt     int64
	hasMmapped bool
	lastMaxT   int64
	closed     []chunkOut
	rng        int64
}

func rangeFor(t, w int64) int64 { return (t/w)*w + w }
func endTime(start, cur, max int64) int64 {
	n := (max - start) / ((cur - start + 1) * 4)
	if n <= 1 {
		return max
	}
	return start + (max-start)/n
}

func (s *series) cut(t int64, e chunkenc.Encoding) {
	if s.chunk != nil && s.chunk.NumSamples() > 0 {
		b := append([]byte(nil), s.chunk.Bytes()...)
		s.closed = append(s.closed, chunkOut{int(s.chunk.Encoding()), s.minT, s.maxT, hex.EncodeToString(b)})
		s.hasMmapped = true
		s.lastMaxT = s.maxT
	}
	s.chunk, _ = chunkenc.NewEmptyChunk(e)
	s.minT, s.maxT = t, math.MinInt64
	s.nextAt = rangeFor(t, s.rng)
	s.app, _ = s.chunk.Appender()
}

func (s *series) preprocess(t int64, e chunkenc.Encoding) (inOrder, created bool) {
	if s.chunk == nil {
		if s.hasMmapped && s.lastMaxT >= t {
			return false, false
		}
		s.cut(t, e)
		created = true
	}
	if s.maxT >= t {
		return false, created
	}
	if s.chunk.Encoding() != e {
		s.cut(t, e)
		created = true
	}
	n := s.chunk.NumSamples()
	if n == 0 {
		s.minT = t
		s.nextAt = rangeFor(t, s.rng)
	}
	if n == 120/4 {
		s.nextAt = endTime(s.minT, s.maxT, s.nextAt)
	}
	if t >= s.nextAt || n >= 240 {
		s.cut(t, e)
		created = true
	}
	return true, created
}

func header(gauge, reset, ok bool) chunkenc.CounterResetHeader {
	switch {
	case gauge:
		return chunkenc.GaugeType
	case reset:
		return chunkenc.CounterReset
	case ok:
		return chunkenc.NotCounterReset
	}
	return chunkenc.UnknownCounterReset
}

func (s *series) appendInt(t int64, h *histogram.Histogram) (bool, bool) {
	app, _ := s.app.(*chunkenc.HistogramAppender)
	var pF, nF, pB, nB []chunkenc.Insert
	var pM, nM []histogram.Span
	var ok, reset, gauge bool
	inOrder, created := s.preprocess(t, chunkenc.EncHistogram)
	if !inOrder {
		return false, created
	}
	switch h.CounterResetHint {
	case histogram.GaugeType:
		gauge = true
		if app != nil {
			pF, nF, pB, nB, pM, nM, ok = app.AppendableGauge(h)
		}
	case histogram.CounterReset:
		reset = true
	default:
		if app != nil {
			pF, nF, ok, reset = app.Appendable(h)
		}
	}
	if !created {
		if len(pB)+len(nB) > 0 {
			h.PositiveSpans, h.NegativeSpans = pM, nM
			app.RecodeHistogram(h, pB, nB)
		}
		if !ok || reset {
			s.cut(t, chunkenc.EncHistogram)
			created = true
		} else if len(pF) > 0 || len(nF) > 0 {
			s.chunk, s.app = app.Recode(pF, nF, h.PositiveSpans, h.NegativeSpans)
		}
	}
	if created {
		s.chunk.(*chunkenc.HistogramChunk).SetCounterResetHeader(header(gauge, reset, ok))
	}
	s.app.AppendHistogram(t, h)
	s.maxT = t
	return true, created
}

func (s *series) appendFloat(t int64, h *histogram.FloatHistogram) (bool, bool) {
	app, _ := s.app.(*chunkenc.FloatHistogramAppender)
	var pF, nF, pB, nB []chunkenc.Insert
	var pM, nM []histogram.Span
	var ok, reset, gauge bool
	inOrder, created := s.preprocess(t, chunkenc.EncFloatHistogram)
	if !inOrder {
		return false, created
	}
	switch h.CounterResetHint {
	case histogram.GaugeType:
		gauge = true
		if app != nil {
			pF, nF, pB, nB, pM, nM, ok = app.AppendableGauge(h)
		}
	case histogram.CounterReset:
		reset = true
	default:
		if app != nil {
			pF, nF, ok, reset = app.Appendable(h)
		}
	}
	if !created {
		if len(pB)+len(nB) > 0 {
			h.PositiveSpans, h.NegativeSpans = pM, nM
			app.RecodeHistogramm(h, pB, nB)
		}
		if !ok || reset {
			s.cut(t, chunkenc.EncFloatHistogram)
			created = true
		} else if len(pF) > 0 || len(nF) > 0 {
			s.chunk, s.app = app.Recode(pF, nF, h.PositiveSpans, h.NegativeSpans)
		}
	}
	if created {
		s.chunk.(*chunkenc.FloatHistogramChunk).SetCounterResetHeader(header(gauge, reset, ok))
	}
	s.app.AppendFloatHistogram(t, h)
	s.maxT = t
	return true, created
}

func main() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	for sc.Scan() {
		var c tc
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			panic(err)
		}
		s := &series{rng: c.ChunkRange}
		o := out{Name: c.Name, Closed: []chunkOut{}, Results: []result{}}
		for _, x := range c.Samples {
			t, _ := strconv.ParseInt(x.T, 10, 64)
			before := len(s.closed)
			var ok, created bool
			if x.Float {
				h := &histogram.FloatHistogram{CounterResetHint: histogram.CounterResetHint(x.Hint), Schema: int32(x.S), ZeroThreshold: bits(x.ZT),
					ZeroCount: bits(x.ZC), Count: bits(x.C), Sum: bits(x.Sum), PositiveSpans: spans(x.PS), NegativeSpans: spans(x.NS)}
				for _, b := range x.PB {
					h.PositiveBuckets = append(h.PositiveBuckets, bits(b))
				}
				for _, b := range x.NB {
					h.NegativeBuckets = append(h.NegativeBuckets, bits(b))
				}
				ok, created = s.appendFloat(t, h)
			} else {
				zc, _ := strconv.ParseUint(x.ZC, 10, 64)
				cnt, _ := strconv.ParseUint(x.C, 10, 64)
				h := &histogram.Histogram{CounterResetHint: histogram.CounterResetHint(x.Hint), Schema: int32(x.S), ZeroThreshold: bits(x.ZT),
					ZeroCount: zc, Count: cnt, Sum: bits(x.Sum), PositiveSpans: spans(x.PS), NegativeSpans: spans(x.NS)}
				for _, b := range x.PB {
					v, _ := strconv.ParseInt(b, 10, 64)
					h.PositiveBuckets = append(h.PositiveBuckets, v)
				}
				for _, b := range x.NB {
					v, _ := strconv.ParseInt(b, 10, 64)
					h.NegativeBuckets = append(h.NegativeBuckets, v)
				}
				ok, created = s.appendInt(t, h)
			}
			o.Results = append(o.Results, result{ok, created, len(s.closed) - before})
		}
		o.Closed = s.closed
		if s.chunk != nil && s.chunk.NumSamples() > 0 {
			o.Open = &chunkOut{int(s.chunk.Encoding()), s.minT, s.maxT, hex.EncodeToString(s.chunk.Bytes())}
		}
		if err := enc.Encode(o); err != nil {
			panic(err)
		}
	}
}
