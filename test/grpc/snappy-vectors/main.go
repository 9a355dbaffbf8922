// Writes a snappy-framed stream exactly as Thanos' gRPC "snappy"
// compressor does (pkg/extgrpc/snappy: snappy.NewBufferedWriter, then
// Close), for test/store/grpc-snappy.test.ts. Run from this directory:
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go run main.go
//
// (Debian: golang-go, golang-github-golang-snappy-dev.) It writes input.bin
// (deterministic: 64 KiB of compressible text, then bytes that do not
// compress, so both chunk types appear) and framed.bin.
package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/golang/snappy"
)

func main() {
	var in bytes.Buffer
	for i := 0; in.Len() < 65536; i++ {
		fmt.Fprintf(&in, "node_cpu_seconds_total{cpu=\"%d\",mode=\"idle\",instance=\"node-%04d:9100\"} %d\n", i%8, i%50, i*7919)
	}
	in.Truncate(65536)
	x := uint32(2463534242)
	for i := 0; i < 20000; i++ {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		in.WriteByte(byte(x))
	}
	var out bytes.Buffer
	w := snappy.NewBufferedWriter(&out)
	if _, err := w.Write(in.Bytes()); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	must(os.WriteFile("input.bin", in.Bytes(), 0o644))
	must(os.WriteFile("framed.bin", out.Bytes(), 0o644))
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
