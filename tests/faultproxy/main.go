// faultproxy: an HTTPS reverse proxy in front of the real kube-apiserver that injects faults on a
// configurable share of requests, for cronwarden's fault-injection tests.
//
//	faultproxy -listen 127.0.0.1:0 -upstream https://127.0.0.1:6443 -upstream-ca ca.crt \
//	           -cert proxy.crt -key proxy.key -rate 0.10 -seed 1 -addr-file addr
//
// Faults (picked uniformly among those enabled, on `rate` of the requests; watches are left alone):
//
//	409  Conflict Status without forwarding (writes only) 429  Too Many Requests, Retry-After: 1
//	500  Internal error without forwarding       503  Service Unavailable without forwarding
//	lost forward the request, then answer 500 (the write happened, the client cannot know)
//	reset close the connection without an answer  delay  forward after 0-1.5 s
//
// Counters of what was injected are printed on SIGTERM and written to -stats-file every second.
package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io/ioutil"
	"log"
	"math/rand"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

type counters struct {
	sync.Mutex
	m map[string]int
}

func (c *counters) add(k string) {
	c.Lock()
	c.m[k]++
	c.Unlock()
}

func (c *counters) snapshot() map[string]int {
	c.Lock()
	defer c.Unlock()
	out := map[string]int{}
	for k, v := range c.m {
		out[k] = v
	}
	return out
}

func status(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	b, _ := json.Marshal(map[string]interface{}{"kind": "Status", "apiVersion": "v1", "status": "Failure",
		"message": msg, "reason": reason, "code": code})
	w.Write(b)
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	upstream := flag.String("upstream", "", "kube-apiserver URL")
	upstreamCA := flag.String("upstream-ca", "", "CA of the kube-apiserver")
	cert := flag.String("cert", "", "serving certificate")
	key := flag.String("key", "", "serving key")
	rate := flag.Float64("rate", 0.1, "share of requests that get a fault")
	seed := flag.Int64("seed", 1, "random seed")
	faults := flag.String("faults", "409,429,500,503,lost,reset,delay", "faults to inject")
	addrFile := flag.String("addr-file", "", "write the listening address here")
	statsFile := flag.String("stats-file", "", "write counters here (JSON) every second")
	flag.Parse()

	u, err := url.Parse(*upstream)
	if err != nil {
		log.Fatal(err)
	}
	pool := x509.NewCertPool()
	pem, err := ioutil.ReadFile(*upstreamCA)
	if err != nil {
		log.Fatal(err)
	}
	pool.AppendCertsFromPEM(pem)
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, MaxIdleConnsPerHost: 64}
	proxy.FlushInterval = -1 // stream watches

	kinds := strings.Split(*faults, ",")
	var mu sync.Mutex
	rng := rand.New(rand.NewSource(*seed))
	pick := func() string {
		mu.Lock()
		defer mu.Unlock()
		if rng.Float64() >= *rate {
			return ""
		}
		return kinds[rng.Intn(len(kinds))]
	}
	delay := func() time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return time.Duration(rng.Intn(1500)) * time.Millisecond
	}
	stats := &counters{m: map[string]int{}}

	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stats.add("requests")
		if r.URL.Query().Get("watch") != "" {
			proxy.ServeHTTP(w, r)
			return
		}
		f := pick()
		if f == "409" && r.Method == http.MethodGet {
			f = "" // a read never conflicts on a real server
		}
		if f != "" {
			stats.add(f)
		}
		switch f {
		case "409":
			status(w, 409, "Conflict", "injected conflict: the object has been modified; please apply your changes to the latest version and try again")
		case "429":
			w.Header().Set("Retry-After", "1")
			status(w, 429, "TooManyRequests", "injected: too many requests")
		case "500":
			status(w, 500, "InternalError", "injected internal error")
		case "503":
			status(w, 503, "ServiceUnavailable", "injected: service unavailable")
		case "lost":
			rec := &discard{h: http.Header{}}
			proxy.ServeHTTP(rec, r)
			status(w, 500, "InternalError", "injected: the answer was lost")
		case "reset":
			if hj, ok := w.(http.Hijacker); ok {
				if c, _, err := hj.Hijack(); err == nil {
					if tc, ok := c.(*tls.Conn); ok {
						if nc, ok := tc.NetConn().(*net.TCPConn); ok {
							nc.SetLinger(0)
						}
					}
					c.Close()
					return
				}
			}
			status(w, 503, "ServiceUnavailable", "injected reset (fallback)")
		case "delay":
			time.Sleep(delay())
			proxy.ServeHTTP(w, r)
		default:
			proxy.ServeHTTP(w, r)
		}
	})

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	if *addrFile != "" {
		ioutil.WriteFile(*addrFile, []byte(ln.Addr().String()), 0644)
	}
	srv := &http.Server{Handler: handler, TLSConfig: &tls.Config{NextProtos: []string{"http/1.1"}}}
	go func() {
		for range time.Tick(time.Second) {
			if *statsFile != "" {
				b, _ := json.Marshal(stats.snapshot())
				ioutil.WriteFile(*statsFile, b, 0644)
			}
		}
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-sig
		b, _ := json.Marshal(stats.snapshot())
		if *statsFile != "" {
			ioutil.WriteFile(*statsFile, b, 0644)
		}
		fmt.Println(string(b))
		os.Exit(0)
	}()
	log.Fatal(srv.ServeTLS(ln, *cert, *key))
}

// discard swallows the upstream answer of a "lost" request.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}
