package pluginapi

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/plughost/plughost/pluginapi/internal/pb"
)

// credentialTimeout bounds the host's answer to one credential request: a
// token refresh is a network round trip to the authorization server.
const credentialTimeout = 60 * time.Second

// credentialAnswerer is the host side of the credentials exchange: it answers
// the plugin's CredentialRequest frames from the Credentials the host opened
// the connection with. Each answer runs in a goroutine of its own (a refresh
// must not stall the message pump); all of them end with ctx.
type credentialAnswerer struct {
	creds Credentials // nil: the connection was opened without credentials
	send  func(*pb.HostFrame) error
	ctx   context.Context
	wg    sync.WaitGroup
}

func (a *credentialAnswerer) answer(req *pb.CredentialRequest) {
	a.wg.Go(func() {
		ctx, cancel := context.WithTimeout(a.ctx, credentialTimeout)
		defer cancel()
		reply := &pb.Credential{Id: req.GetId()}
		auth, err := a.ask(ctx, req)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				pe = &Error{Op: "credentials", Kind: kindOfPlain(err), Err: err}
			}
			reply.Error = detailOf(pe)
		} else {
			reply.Authorization, reply.CacheForNanos = auth.Value, int64(auth.CacheFor)
		}
		// A failed send means the stream is gone; the plugin sees that too.
		_ = a.send(&pb.HostFrame{Frame: &pb.HostFrame_Credential{Credential: reply}})
	})
}

func (a *credentialAnswerer) ask(ctx context.Context, req *pb.CredentialRequest) (Authorization, error) {
	if a.creds == nil {
		return Authorization{}, Errorf("credentials", KindUnsupported, "the host opened this connection without credentials")
	}
	if req.GetStatus() == 0 {
		return a.creds.Authorization(ctx)
	}
	return a.creds.Rejected(ctx, Rejection{
		Status:          int(req.GetStatus()),
		WWWAuthenticate: req.GetWwwAuthenticate(),
		Sent:            req.GetSent(),
	})
}

// wait waits for the answers in progress (they end with ctx).
func (a *credentialAnswerer) wait() { a.wg.Wait() }

// errCredentialsGone is the cause of a credential request the host can no
// longer answer: the connection is closing or closed.
var errCredentialsGone = errors.New("the host no longer answers credential requests on this connection")

// streamCredentials is the plugin side of the exchange: a Credentials that
// asks the host over the Connect stream. Once the host stops answering (it
// closes the connection), the last value it gave is used, so that the
// requests a transport makes while closing (a streamable-HTTP session's
// DELETE) still carry it.
type streamCredentials struct {
	send func(*pb.PluginFrame) error

	mu      sync.Mutex
	next    uint64
	waiting map[uint64]chan *pb.Credential
	ended   bool
	last    string // the last value the host gave
}

func newStreamCredentials(send func(*pb.PluginFrame) error) *streamCredentials {
	return &streamCredentials{send: send, waiting: map[uint64]chan *pb.Credential{}}
}

// Authorization asks the host for the value to send.
func (s *streamCredentials) Authorization(ctx context.Context) (Authorization, error) {
	return s.ask(ctx, &pb.CredentialRequest{})
}

// Rejected tells the host the server refused a request.
func (s *streamCredentials) Rejected(ctx context.Context, r Rejection) (Authorization, error) {
	return s.ask(ctx, &pb.CredentialRequest{Status: int32(r.Status), WwwAuthenticate: r.WWWAuthenticate, Sent: r.Sent})
}

func (s *streamCredentials) ask(ctx context.Context, req *pb.CredentialRequest) (Authorization, error) {
	ch := make(chan *pb.Credential, 1)
	s.mu.Lock()
	if s.ended {
		last := s.last
		s.mu.Unlock()
		return s.afterEnd(req, last)
	}
	s.next++
	req.Id = s.next
	s.waiting[req.Id] = ch
	s.mu.Unlock()
	defer s.forget(req.Id)

	if err := s.send(&pb.PluginFrame{Frame: &pb.PluginFrame_CredentialRequest{CredentialRequest: req}}); err != nil {
		return Authorization{}, Errorf("credentials", KindServerExited, "ask the host for credentials: %w", err)
	}
	select {
	case c, ok := <-ch:
		if !ok {
			return s.afterEnd(req, s.lastValue())
		}
		if d := c.GetError(); d != nil {
			return Authorization{}, errorFromDetail(d)
		}
		s.mu.Lock()
		s.last = c.GetAuthorization()
		s.mu.Unlock()
		return Authorization{Value: c.GetAuthorization(), CacheFor: time.Duration(c.GetCacheForNanos())}, nil
	case <-ctx.Done():
		return Authorization{}, Errorf("credentials", kindOfPlain(ctx.Err()), "waiting for the host's credentials: %w", ctx.Err())
	}
}

// afterEnd answers once the host is gone: the last value it gave, unless
// that value is the one the server just refused.
func (s *streamCredentials) afterEnd(req *pb.CredentialRequest, last string) (Authorization, error) {
	if req.GetStatus() != 0 || last == "" {
		return Authorization{}, Errorf("credentials", KindServerExited, "%w", errCredentialsGone)
	}
	return Authorization{Value: last}, nil
}

func (s *streamCredentials) lastValue() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

func (s *streamCredentials) forget(id uint64) {
	s.mu.Lock()
	delete(s.waiting, id)
	s.mu.Unlock()
}

// deliver hands the host's answer to the request waiting for it.
func (s *streamCredentials) deliver(c *pb.Credential) {
	s.mu.Lock()
	ch := s.waiting[c.GetId()]
	delete(s.waiting, c.GetId())
	s.mu.Unlock()
	if ch != nil {
		ch <- c // buffered; each id is answered once
	}
}

// end marks the host as gone: waiting requests and later ones fall back to
// the last value.
func (s *streamCredentials) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.ended = true
	for id, ch := range s.waiting {
		close(ch)
		delete(s.waiting, id)
	}
}
