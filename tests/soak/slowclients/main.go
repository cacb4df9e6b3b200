// slowclients keeps N TLS connections open to a server and, after one request sent whole,
// trickles requests through each one byte by byte (one byte every -interval), like a slow or
// stuck client. A connection the server
// closes is opened again, so N stay open. Prints a summary line on SIGTERM/SIGINT and every 30 s:
//
//	slowclients -addr 127.0.0.1:9443 -n 500 -interval 5s
package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9443", "server address")
	n := flag.Int("n", 500, "connections to keep open")
	interval := flag.Duration("interval", 5*time.Second, "pause between bytes")
	plain := flag.Bool("plain", false, "plain HTTP instead of TLS")
	get := flag.String("get", "", "trickle GET PATH from the first byte (no request sent whole first)")
	from := flag.String("from", "", "local address to connect from")
	flag.Parse()
	var open, dials, closed int64
	req := []byte("POST /mutate HTTP/1.1\r\nHost: soak\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
	if *get != "" {
		req = []byte("GET " + *get + " HTTP/1.1\r\nHost: slow\r\nUser-Agent: slowclients\r\n\r\n")
	}
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	if *from != "" {
		dialer.LocalAddr = &net.TCPAddr{IP: net.ParseIP(*from)}
	}
	dial := func() (net.Conn, error) {
		if *plain {
			return dialer.Dial("tcp", *addr)
		}
		return tls.DialWithDialer(dialer, "tcp", *addr, &tls.Config{InsecureSkipVerify: true})
	}
	for i := 0; i < *n; i++ {
		go func() {
			for {
				atomic.AddInt64(&dials, 1)
				c, err := dial()
				if err != nil {
					time.Sleep(time.Second)
					continue
				}
				atomic.AddInt64(&open, 1)
				// The first request goes out whole, so every connection has been served once
				// before the soak measures: the server's per-connection state is at its steady
				// size, and later trickled requests (one every len(req)*interval) repeat it.
				c.SetWriteDeadline(time.Now().Add(10 * time.Second))
				if *get != "" {
					// nothing whole: the slowloris shape
				} else if _, err := c.Write(req); err != nil {
					c.Close()
					atomic.AddInt64(&open, -1)
					atomic.AddInt64(&closed, 1)
					continue
				}
				for i := 0; ; i = (i + 1) % len(req) {
					c.SetWriteDeadline(time.Now().Add(10 * time.Second))
					if _, err := c.Write(req[i : i+1]); err != nil {
						break
					}
					time.Sleep(*interval)
				}
				c.Close()
				atomic.AddInt64(&open, -1)
				atomic.AddInt64(&closed, 1)
			}
		}()
		time.Sleep(2 * time.Millisecond)
	}
	report := func() {
		fmt.Printf("slowclients open=%d dials=%d closed_by_server=%d\n",
			atomic.LoadInt64(&open), atomic.LoadInt64(&dials), atomic.LoadInt64(&closed))
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	tick := time.NewTicker(30 * time.Second)
	for {
		select {
		case <-sig:
			report()
			return
		case <-tick.C:
			report()
		}
	}
}
