// cron-oracle answers cron questions with the real robfig/cron v3 (Debian's
// golang-github-robfig-cron-dev), so cronwarden's C port can be compared with it.
//
// Default mode reads lines "<unix> <offset-seconds> <count> <hex-expression>" and prints, per
// line, "err <message>", "panic" (robfig crashed), or "ok" followed by up to <count> RFC 3339
// fire times (in the input's offset), ending with "never" when the schedule stops firing or
// "hang" when Next did not return within 3 seconds.
// Bytes < 0x20, >= 0x7f and '\' in messages are written as \xHH.
//
// -bench reads one expression per line and prints parse and next() costs in ns/op.
package main

import (
	"bufio"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron"
)

func esc(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '\\' {
			fmt.Fprintf(&b, "\\x%02x", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func parse(spec string) (s cron.Schedule, err error, panicked bool) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	s, err = cron.ParseStandard(spec)
	return
}

func answer(line string) string {
	f := strings.Split(line, " ")
	if len(f) != 4 {
		return "bad input line"
	}
	unix, _ := strconv.ParseInt(f[0], 10, 64)
	off, _ := strconv.Atoi(f[1])
	n, _ := strconv.Atoi(f[2])
	raw, err := hex.DecodeString(f[3])
	if err != nil {
		return "bad input line"
	}
	s, err, panicked := parse(string(raw))
	if panicked {
		return "panic"
	}
	if err != nil {
		return "err " + esc(err.Error())
	}
	loc := time.UTC
	if off != 0 {
		loc = time.FixedZone("", off)
	}
	t := time.Unix(unix, 0).In(loc)
	var b strings.Builder
	b.WriteString("ok")
	for i := 0; i < n; i++ {
		// robfig's Next can spin forever (a skipped local day); give up after a while and
		// leave the goroutine behind.
		done := make(chan time.Time, 1)
		go func(from time.Time) { done <- s.Next(from) }(t)
		select {
		case t = <-done:
		case <-time.After(3 * time.Second):
			b.WriteString(" hang")
			return b.String()
		}
		if t.IsZero() {
			b.WriteString(" never")
			break
		}
		b.WriteString(" " + t.Format(time.RFC3339))
	}
	return b.String()
}

func median(v []float64) float64 {
	sort.Float64s(v)
	return v[len(v)/2]
}

// bench mirrors bench/cron.c: the same expressions, the same from-times, median of runs.
func bench(runs, iters int) {
	var specs []string
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		if l := sc.Text(); l != "" {
			specs = append(specs, l)
		}
	}
	scheds := make([]cron.Schedule, len(specs))
	for i, sp := range specs {
		s, err := cron.ParseStandard(sp)
		if err != nil {
			fmt.Fprintf(os.Stderr, "cron-oracle: %q: %v\n", sp, err)
			os.Exit(1)
		}
		scheds[i] = s
	}
	from := make([]time.Time, 64)
	for i := range from {
		from[i] = time.Unix(1700000000+int64(i)*7919*61, 0).UTC()
	}
	var plain []string // without a zone prefix: no zone file to read
	for _, sp := range specs {
		if !strings.HasPrefix(sp, "TZ=") && !strings.HasPrefix(sp, "CRON_TZ=") {
			plain = append(plain, sp)
		}
	}
	var parseNs, plainNs, nextNs []float64
	sink := 0
	for r := 0; r < runs; r++ {
		start := time.Now()
		for it := 0; it < iters; it++ {
			for _, sp := range specs {
				if s, _ := cron.ParseStandard(sp); s != nil {
					sink++
				}
			}
		}
		parseNs = append(parseNs, float64(time.Since(start).Nanoseconds())/float64(iters*len(specs)))
		start = time.Now()
		for it := 0; it < iters; it++ {
			for _, sp := range plain {
				if s, _ := cron.ParseStandard(sp); s != nil {
					sink++
				}
			}
		}
		plainNs = append(plainNs, float64(time.Since(start).Nanoseconds())/float64(iters*len(plain)))
		start = time.Now()
		for it := 0; it < iters; it++ {
			for i, s := range scheds {
				sink += s.Next(from[(it+i)%len(from)]).Second()
			}
		}
		nextNs = append(nextNs, float64(time.Since(start).Nanoseconds())/float64(iters*len(specs)))
	}
	fmt.Printf("parse_ns %.1f\nparse_plain_ns %.1f\nnext_ns %.1f\nsink %d\n", median(parseNs),
		median(plainNs), median(nextNs), sink)
}

func main() {
	doBench := flag.Bool("bench", false, "benchmark mode")
	runs := flag.Int("runs", 5, "benchmark runs (median is reported)")
	iters := flag.Int("iters", 200, "passes over the expressions per run")
	flag.Parse()
	if *doBench {
		bench(*runs, *iters)
		return
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		fmt.Fprintln(out, answer(in.Text()))
		if os.Getenv("CRON_ORACLE_FLUSH") != "" {
			out.Flush()
		}
	}
}
