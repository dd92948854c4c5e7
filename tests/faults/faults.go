// Package faults is an HTTP file server that misbehaves on purpose, for
// checking that the HTTP readers (Go's zarr/store/http, the npm package's
// FetchStore and ReferenceStore) never return wrong bytes, never hang and
// never crash, whatever a server does.
//
// A request for /<fault>/<when>/<path> serves <path> from the root, with
// the fault applied on the attempts <when> selects:
//
//	when   all  every attempt
//	       N    the first N attempts of each distinct request (path and
//	            Range header); later attempts are served correctly
//	       pN   about N % of attempts, chosen by a hash of the request and
//	            its attempt number (so runs repeat), never more than two
//	            in a row for one request
//
//	fault  ok            no fault
//	       5xx           500, 502, 503 or 504 (cycling with the attempt)
//	       reset         the connection is reset before any answer
//	       truncate      the answer is cut: the connection closes halfway
//	                     through the body (Content-Length promised more);
//	                     a 206 is, on every other attempt, framed correctly
//	                     but shorter than its Content-Range says
//	       ignore-range  a ranged request gets 200 with the whole file
//	       endless       the status and headers of a correct answer, then
//	                     a body that never ends (no Content-Length)
//	       stall         nothing at all is sent until the client gives up
//	       stall-body    the headers and half the body, then nothing
//	       429           429 Too Many Requests with Retry-After: 1
//	       429-date      the same with Retry-After as an HTTP date (+1 s)
//	       429-long      the same with Retry-After: 3600
//	       mix           one of 5xx, reset, truncate, stall-body
//	                     (chosen by the attempt's hash)
//
// GET /_stats answers {"requests": n, "faults": n}; /_reset sets them to 0.
package faults

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Faults lists the fault names the server knows.
var Faults = []string{"ok", "5xx", "reset", "truncate", "ignore-range", "endless", "stall", "stall-body", "429", "429-date", "429-long", "mix"}

// mixed are the faults "mix" chooses from.
var mixed = []string{"5xx", "reset", "truncate", "stall-body"}

// Server serves files from Root with faults.
type Server struct {
	Root fs.FS
	// MaxStall bounds how long a stalled answer keeps its connection
	// (0: 2 minutes), so a client that never gives up is still released.
	MaxStall time.Duration

	mu       sync.Mutex
	attempts map[string]int // distinct request -> attempts so far
	streak   map[string]int // distinct request -> faults in a row
	requests int
	faults   int
}

// New returns a server over root.
func New(root fs.FS) *Server {
	return &Server{Root: root, attempts: map[string]int{}, streak: map[string]int{}}
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/_stats":
		s.mu.Lock()
		b, _ := json.Marshal(map[string]int{"requests": s.requests, "faults": s.faults})
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
		return
	case "/_reset":
		s.mu.Lock()
		s.requests, s.faults = 0, 0
		s.attempts, s.streak = map[string]int{}, map[string]int{}
		s.mu.Unlock()
		return
	}
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 3)
	if len(parts) != 3 {
		http.Error(w, "want /<fault>/<when>/<path>", http.StatusBadRequest)
		return
	}
	fault, when, name := parts[0], parts[1], parts[2]
	data, err := fs.ReadFile(s.Root, name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	id := r.URL.Path + " " + r.Header.Get("Range")
	attempt, apply := s.decide(fault, when, id)
	if !apply {
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
		return
	}
	if fault == "mix" {
		fault = mixed[hash(id, attempt)%uint32(len(mixed))]
	}
	s.misbehave(w, r, fault, attempt, name, data)
}

// decide counts the attempt and says whether the fault applies to it.
func (s *Server) decide(fault, when, id string) (attempt int, apply bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	attempt = s.attempts[id]
	s.attempts[id] = attempt + 1
	switch {
	case fault == "ok":
	case when == "all":
		apply = true
	case strings.HasPrefix(when, "p"):
		pct, _ := strconv.Atoi(when[1:])
		apply = int(hash(id, attempt)%100) < pct && s.streak[id] < 2
	default:
		n, _ := strconv.Atoi(when)
		apply = attempt < n
	}
	if apply {
		s.faults++
		s.streak[id]++
	} else {
		s.streak[id] = 0
	}
	return attempt, apply
}

func hash(id string, attempt int) uint32 {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s#%d", id, attempt)
	return h.Sum32()
}

// correct works out the status, headers and body of a correct answer.
func correct(r *http.Request, data []byte) (int, http.Header, []byte) {
	rec := &recorder{header: http.Header{}}
	http.ServeContent(rec, r, "", time.Time{}, bytes.NewReader(data))
	return rec.status, rec.header, rec.body.Bytes()
}

type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = 200
	}
	return r.body.Write(b)
}
func (r *recorder) WriteHeader(code int) { r.status = code }

func (s *Server) misbehave(w http.ResponseWriter, r *http.Request, fault string, attempt int, name string, data []byte) {
	switch fault {
	case "5xx":
		codes := []int{503, 500, 502, 504}
		http.Error(w, "fault", codes[attempt%len(codes)])
	case "429", "429-date", "429-long":
		after := "1"
		switch fault {
		case "429-date":
			after = time.Now().Add(time.Second).UTC().Format(http.TimeFormat)
		case "429-long":
			after = "3600"
		}
		w.Header().Set("Retry-After", after)
		http.Error(w, "slow down", http.StatusTooManyRequests)
	case "ignore-range":
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.Write(data)
	case "reset":
		if conn := hijack(w); conn != nil {
			if tc, ok := conn.(*net.TCPConn); ok {
				tc.SetLinger(0) // close with RST
			}
			conn.Close()
		}
	case "truncate":
		status, h, body := correct(r, data)
		if status == http.StatusPartialContent && attempt%2 == 1 {
			// correctly framed, but fewer bytes than Content-Range says
			half := body[:len(body)/2]
			h.Set("Content-Length", strconv.Itoa(len(half)))
			copyHeader(w, h)
			w.WriteHeader(status)
			w.Write(half)
			return
		}
		conn := hijack(w)
		if conn == nil {
			return
		}
		defer conn.Close()
		h.Set("Content-Length", strconv.Itoa(len(body)))
		writeHead(conn, status, h)
		conn.Write(body[:len(body)/2])
	case "endless":
		status, h, _ := correct(r, data)
		h.Del("Content-Length")
		copyHeader(w, h)
		w.WriteHeader(status)
		junk := bytes.Repeat([]byte{0x5a}, 64<<10)
		deadline := time.Now().Add(s.maxStall())
		for time.Now().Before(deadline) {
			if _, err := w.Write(junk); err != nil {
				return
			}
		}
	case "stall":
		select {
		case <-r.Context().Done():
		case <-time.After(s.maxStall()):
		}
	case "stall-body":
		status, h, body := correct(r, data)
		copyHeader(w, h)
		w.WriteHeader(status)
		w.Write(body[:len(body)/2])
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		select {
		case <-r.Context().Done():
		case <-time.After(s.maxStall()):
		}
	default:
		http.Error(w, "unknown fault "+fault, http.StatusBadRequest)
	}
}

func (s *Server) maxStall() time.Duration {
	if s.MaxStall > 0 {
		return s.MaxStall
	}
	return 2 * time.Minute
}

func hijack(w http.ResponseWriter) net.Conn {
	hj, ok := w.(http.Hijacker)
	if !ok {
		return nil
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return nil
	}
	return conn
}

func copyHeader(w http.ResponseWriter, h http.Header) {
	for k, vs := range h {
		w.Header()[k] = vs
	}
}

func writeHead(conn net.Conn, status int, h http.Header) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
	h.Set("Connection", "close")
	h.Write(&b)
	b.WriteString("\r\n")
	conn.Write(b.Bytes())
}
