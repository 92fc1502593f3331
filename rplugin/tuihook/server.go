package tuihook

import (
	"bufio"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// maxSocketPath is the longest socket path every unix takes (sun_path:
// 104 bytes on the BSDs, 108 on Linux, with its NUL).
const maxSocketPath = 100

// Dir is the private per-user folder the host's socket lives in:
// $XDG_RUNTIME_DIR/claudenova, else claudenova-UID in the temp folder, else
// in /tmp: the first where a socket's path is short enough.
func Dir(getenv func(string) string) string {
	user := "claudenova-" + strconv.Itoa(os.Getuid())
	var dirs []string
	if d := getenv("XDG_RUNTIME_DIR"); d != "" {
		dirs = append(dirs, filepath.Join(d, "claudenova"))
	}
	if d := getenv("TMPDIR"); d != "" {
		dirs = append(dirs, filepath.Join(d, user))
	}
	dirs = append(dirs, filepath.Join("/tmp", user))
	for _, d := range dirs {
		if len(socketPath(d, 1<<22)) <= maxSocketPath {
			return d
		}
	}
	return dirs[len(dirs)-1]
}

// socketPath is the socket of the host with pid in dir.
func socketPath(dir string, pid int) string {
	return filepath.Join(dir, "hook-"+strconv.Itoa(pid)+".sock")
}

// Server is the host's end of the hooks: it takes each hook's request,
// finds the session by its token and waits for the user's decision.
type Server struct {
	log  *slog.Logger
	ln   net.Listener
	path string

	mu    sync.Mutex
	conns map[string]*Conn // by token
	wg    sync.WaitGroup
}

// Listen starts a server on a socket of its own in dir (made 0700).
func Listen(dir string, log *slog.Logger) (*Server, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := ownDir(dir); err != nil {
		return nil, err
	}
	path := socketPath(dir, os.Getpid())
	_ = os.Remove(path) // left by a host of an earlier boot with our pid
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen for the TUI's hooks: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("listen for the TUI's hooks: %w", err)
	}
	s := &Server{log: log, ln: ln, path: path, conns: map[string]*Conn{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Path is the socket's path.
func (s *Server) Path() string { return s.path }

// Add registers c and returns its token (secret: only its TUI has it).
func (s *Server) Add(c *Conn) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	token := hex.EncodeToString(b)
	s.mu.Lock()
	s.conns[token] = c
	s.mu.Unlock()
	return token, nil
}

// Remove forgets a token: its hooks get no decision from now on.
func (s *Server) Remove(token string) {
	s.mu.Lock()
	delete(s.conns, token)
	s.mu.Unlock()
}

// Close stops listening and removes the socket; hooks that wait get no
// decision (their TUI asks).
func (s *Server) Close() {
	_ = s.ln.Close()
	_ = os.Remove(s.path)
	s.wg.Wait()
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				s.log.Warn("tui hook: accept", "err", err)
			}
			return
		}
		go s.serve(nc)
	}
}

// find is the session of token, compared in constant time.
func (s *Server) find(token string) *Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	for t, c := range s.conns {
		if subtle.ConstantTimeCompare([]byte(t), []byte(token)) == 1 {
			return c
		}
	}
	return nil
}

// serve reads one request and waits for its decision. A request that is
// not one (bad token, malformed) is closed with no decision.
func (s *Server) serve(nc net.Conn) {
	defer nc.Close()
	br := bufio.NewReaderSize(io.LimitReader(nc, maxLine), 64<<10)
	line, err := br.ReadBytes('\n')
	if err != nil {
		s.log.Debug("tui hook: read request", "err", err)
		return
	}
	var a ask
	if err := json.Unmarshal(line, &a); err != nil {
		s.log.Warn("tui hook: malformed request", "err", err)
		return
	}
	c := s.find(a.Token)
	if c == nil {
		s.log.Warn("tui hook: a request with an unknown token: no decision")
		return
	}
	gone := make(chan struct{})
	if len(a.MCP) > 0 {
		go func() {
			_, _ = io.Copy(io.Discard, br)
			close(gone)
		}()
		if out, ok := c.mcp(a.MCP, gone); ok {
			if _, err := nc.Write(out); err != nil {
				s.log.Warn("tui mcp: send the answer", "err", err)
			}
		}
		return
	}
	var in HookInput
	if err := json.Unmarshal(a.Input, &in); err != nil {
		s.log.Warn("tui hook: malformed input", "err", err)
		return
	}
	if err := in.check(); err != nil {
		s.log.Warn("tui hook: input refused", "err", err)
		return
	}
	// The hook's end closing (the TUI answered itself, or was ended)
	// withdraws the request.
	go func() {
		_, _ = io.Copy(io.Discard, br)
		close(gone)
	}()
	var out []byte
	var ok bool
	if in.HookEventName == EventPermission {
		out, ok = c.ask(in, gone)
	} else {
		out, ok = c.notice(in, gone)
	}
	if !ok {
		return
	}
	if _, err := nc.Write(out); err != nil {
		s.log.Warn("tui hook: send decision", "err", err)
	}
}
