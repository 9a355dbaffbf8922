//go:build ignore

// Copy to cmd/chunks/main.go of a module holding Prometheus v2.42.0 (README.md).

// Reads histogram chunk cases (JSON lines) and writes, per case, the bytes
// Prometheus v2.42.0's chunkenc appenders produce and what its iterators
// decode. Floats travel as hex bit patterns so NaN payloads survive.
package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/prometheus/prometheus/model/histogram"
	"github.com/prometheus/prometheus/tsdb/chunkenc"
)

type span [2]int64 // offset, length

type sample struct {
	T    string   `json:"t"`
	Hint int      `json:"hint"`
	S    int64    `json:"schema"`
	ZT   string   `json:"zt"`
	ZC   string   `json:"zc"`
	C    string   `json:"c"`
	Sum  string   `json:"sum"`
	PS   []span   `json:"ps"`
	NS   []span   `json:"ns"`
	PB   []string `json:"pb"`
	NB   []string `json:"nb"`
}

type tc struct {
	Name    string   `json:"name"`
	Float   bool     `json:"float"`
	Header  int      `json:"header"`
	Samples []sample `json:"samples"`
}

type out struct {
	Name    string   `json:"name"`
	Hex     string   `json:"hex"`
	Decoded []sample `json:"decoded"`
	Err     string   `json:"err,omitempty"`
}

func bits(s string) float64 {
	u, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		panic(err)
	}
	return math.Float64frombits(u)
}
func hexf(f float64) string { return strconv.FormatUint(math.Float64bits(f), 16) }
func i64(s string) int64 {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		panic(err)
	}
	return v
}
func spans(in []span) []histogram.Span {
	var o []histogram.Span
	for _, s := range in {
		o = append(o, histogram.Span{Offset: int32(s[0]), Length: uint32(s[1])})
	}
	return o
}
func unspans(in []histogram.Span) []span {
	o := []span{}
	for _, s := range in {
		o = append(o, span{int64(s.Offset), int64(s.Length)})
	}
	return o
}

var headers = []chunkenc.CounterResetHeader{chunkenc.UnknownCounterReset, chunkenc.NotCounterReset, chunkenc.CounterReset, chunkenc.GaugeType}

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
		o := out{Name: c.Name, Decoded: []sample{}}
		var chk chunkenc.Chunk
		if c.Float {
			fc := chunkenc.NewFloatHistogramChunk()
			app, _ := fc.Appender()
			for _, s := range c.Samples {
				h := &histogram.FloatHistogram{CounterResetHint: histogram.CounterResetHint(s.Hint), Schema: int32(s.S), ZeroThreshold: bits(s.ZT),
					ZeroCount: bits(s.ZC), Count: bits(s.C), Sum: bits(s.Sum), PositiveSpans: spans(s.PS), NegativeSpans: spans(s.NS)}
				for _, b := range s.PB {
					h.PositiveBuckets = append(h.PositiveBuckets, bits(b))
				}
				for _, b := range s.NB {
					h.NegativeBuckets = append(h.NegativeBuckets, bits(b))
				}
				app.AppendFloatHistogram(i64(s.T), h)
			}
			fc.SetCounterResetHeader(headers[c.Header])
			chk = fc
		} else {
			hc := chunkenc.NewHistogramChunk()
			app, _ := hc.Appender()
			for _, s := range c.Samples {
				zc, _ := strconv.ParseUint(s.ZC, 10, 64)
				cnt, _ := strconv.ParseUint(s.C, 10, 64)
				h := &histogram.Histogram{CounterResetHint: histogram.CounterResetHint(s.Hint), Schema: int32(s.S), ZeroThreshold: bits(s.ZT),
					ZeroCount: zc, Count: cnt, Sum: bits(s.Sum), PositiveSpans: spans(s.PS), NegativeSpans: spans(s.NS)}
				for _, b := range s.PB {
					h.PositiveBuckets = append(h.PositiveBuckets, i64(b))
				}
				for _, b := range s.NB {
					h.NegativeBuckets = append(h.NegativeBuckets, i64(b))
				}
				app.AppendHistogram(i64(s.T), h)
			}
			hc.SetCounterResetHeader(headers[c.Header])
			chk = hc
		}
		o.Hex = hex.EncodeToString(chk.Bytes())
		it := chk.Iterator(nil)
		for {
			vt := it.Next()
			if vt == chunkenc.ValNone {
				break
			}
			var s sample
			if c.Float {
				t, h := it.AtFloatHistogram()
				s = sample{T: strconv.FormatInt(t, 10), Hint: int(h.CounterResetHint), S: int64(h.Schema), ZT: hexf(h.ZeroThreshold), ZC: hexf(h.ZeroCount), C: hexf(h.Count), Sum: hexf(h.Sum),
					PS: unspans(h.PositiveSpans), NS: unspans(h.NegativeSpans), PB: []string{}, NB: []string{}}
				for _, b := range h.PositiveBuckets {
					s.PB = append(s.PB, hexf(b))
				}
				for _, b := range h.NegativeBuckets {
					s.NB = append(s.NB, hexf(b))
				}
			} else {
				t, h := it.AtHistogram()
				s = sample{T: strconv.FormatInt(t, 10), Hint: int(h.CounterResetHint), S: int64(h.Schema), ZT: hexf(h.ZeroThreshold), ZC: strconv.FormatUint(h.ZeroCount, 10), C: strconv.FormatUint(h.Count, 10), Sum: hexf(h.Sum),
					PS: unspans(h.PositiveSpans), NS: unspans(h.NegativeSpans), PB: []string{}, NB: []string{}}
				for _, b := range h.PositiveBuckets {
					s.PB = append(s.PB, strconv.FormatInt(b, 10))
				}
				for _, b := range h.NegativeBuckets {
					s.NB = append(s.NB, strconv.FormatInt(b, 10))
				}
			}
			o.Decoded = append(o.Decoded, s)
		}
		if it.Err() != nil {
			o.Err = it.Err().Error()
		}
		if err := enc.Encode(o); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
}
