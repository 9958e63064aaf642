// Command hostile measures how mcpdeck's HTTP gateway stands slow and
// hostile clients (the figures of the gateway's bounds; the tests check
// the behaviour). Run a gateway, then, from the module root:
//
//	go run ./runtime/gateway/testdata/hostile -addr 127.0.0.1:8765 -mode trickle -n 800 -for 15s
//	go run ./runtime/gateway/testdata/hostile -addr 127.0.0.1:8765 -mode sessions -n 3000 -token TOKEN
//
// -mode trickle: N unauthenticated connections that send a POST's headers
// and trickle its body a byte a second; after -for, how many are still open.
// -mode sessions: N initialize-only sessions with the token; how many kept.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	addr := flag.String("addr", "", "host:port")
	mode := flag.String("mode", "trickle", "trickle|sessions")
	n := flag.Int("n", 800, "connections or sessions")
	token := flag.String("token", "", "bearer token (sessions)")
	dur := flag.Duration("for", 15*time.Second, "how long to trickle")
	flag.Parse()
	switch *mode {
	case "trickle":
		var open, refused, answered atomic.Int64
		var wg sync.WaitGroup
		for i := 0; i < *n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := net.DialTimeout("tcp", *addr, 5*time.Second)
				if err != nil {
					refused.Add(1)
					return
				}
				defer c.Close()
				fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
				closed := make(chan struct{})
				go func() {
					r := bufio.NewReader(c)
					if resp, err := http.ReadResponse(r, nil); err == nil {
						answered.Add(1)
						resp.Body.Close()
					}
					for {
						if _, err := r.ReadByte(); err != nil {
							close(closed)
							return
						}
					}
				}()
				t := time.NewTicker(time.Second)
				defer t.Stop()
				end := time.After(*dur)
				for {
					select {
					case <-closed:
						return
					case <-end:
						open.Add(1)
						return
					case <-t.C:
						if _, err := c.Write([]byte(" ")); err != nil {
							<-closed
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		fmt.Printf("trickle: %d connections, %d answered, %d still open after %s, %d not connected\n", *n, answered.Load(), open.Load(), *dur, refused.Load())
	case "sessions":
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
		codes := map[int]int{}
		var last string
		client := &http.Client{Timeout: 10 * time.Second}
		for i := 0; i < *n; i++ {
			req, _ := http.NewRequest("POST", "http://"+*addr+"/mcp", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+*token)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := client.Do(req)
			if err != nil {
				codes[-1]++
				continue
			}
			codes[resp.StatusCode]++
			if resp.StatusCode != 200 {
				b := make([]byte, 400)
				k, _ := resp.Body.Read(b)
				last = string(b[:k])
			}
			resp.Body.Close()
		}
		fmt.Printf("sessions: %d initialize-only; status counts %v\n", *n, codes)
		if last != "" {
			fmt.Printf("last refusal: %s\n", last)
		}
	}
}
