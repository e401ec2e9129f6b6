package supervisor

import "fmt"

// Ending says why a server's live connection went away while its status
// still says connected: the short time between a teardown taking the
// connection and the supervisor recording what comes next.
type Ending string

const (
	// EndingLost: the connection was lost (the server or its plugin
	// exited, or broke the protocol); the server is being restarted.
	EndingLost Ending = "lost"
	// EndingStop: the supervisor was told to stop (a config change that
	// restarts or removes the server, or plughost shutting down).
	EndingStop Ending = "stop"
)

// NotConnectedError is the error of a request to a server with no live
// connection, with the server's status when the request was refused (a
// status read later may already be another: the server reconnected).
// errors.Is(err, ErrNotConnected) holds for it.
type NotConnectedError struct {
	// Server is the server's name.
	Server string
	// Status is the server's status when the request was refused.
	Status Status
	// Ending, when set, says why the connection went away though Status
	// still says connected.
	Ending Ending
}

// Error implements error.
func (e *NotConnectedError) Error() string {
	state := string(e.Status.State)
	switch e.Ending {
	case EndingLost:
		state = "restarting: its connection was lost"
	case EndingStop:
		state = "stopping"
	}
	if e.Status.LastError != "" {
		state += "; last error: " + e.Status.LastError
	}
	return fmt.Sprintf("server %q (%s): %v", e.Server, state, ErrNotConnected)
}

// Unwrap returns ErrNotConnected.
func (e *NotConnectedError) Unwrap() error { return ErrNotConnected }
