package pluginapi

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// One plugin process serving two connections answers Diagnostics per
// connection, by the id each Opened frame carried, and still after the
// connection ended; without an id, about its most recent connection.
func TestDiagnosticsPerConnection(t *testing.T) {
	impl := &fakeTransport{}
	c := shims(t, impl)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	open := func(d Diagnostics) (Conn, *fakeConn) {
		t.Helper()
		impl.mu.Lock()
		impl.diag = d
		impl.mu.Unlock()
		conn, err := c.Open(ctx, OpenRequest{ServerName: "s"})
		if err != nil {
			t.Fatal(err)
		}
		return conn, <-impl.conns
	}
	first, firstFake := open(Diagnostics{PID: 41, Stderr: "first"})
	second, _ := open(Diagnostics{PID: 42, Stderr: "second"})
	ids := []string{ConnectionID(first), ConnectionID(second)}
	if ids[0] == "" || ids[0] == ids[1] {
		t.Fatalf("connection ids %q; want two different ones", ids)
	}
	for i, want := range []int{41, 42} {
		d, err := c.Diagnostics(ctx, ids[i])
		if err != nil || d.PID != want {
			t.Errorf("diagnostics of connection %s: %+v, %v; want pid %d", ids[i], d, err, want)
		}
	}
	if d, _ := c.Diagnostics(ctx, ""); d.PID != 42 {
		t.Errorf("diagnostics without an id: pid %d; want the most recent connection's, 42", d.PID)
	}

	firstFake.end <- errors.New("server exited")
	if _, err := first.Recv(ctx); err == nil {
		t.Fatal("Recv after the server ended: no error")
	}
	var d Diagnostics
	deadline := time.Now().Add(5 * time.Second)
	for { // the plugin records the end just after it ends the stream
		var err error
		if d, err = c.Diagnostics(ctx, ids[0]); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if diff := cmp.Diff(Diagnostics{PID: 41, Stderr: "first"}, d); diff != "" {
		t.Errorf("diagnostics of the ended connection (-want +got):\n%s", diff)
	}
	if _, err := c.Diagnostics(context.Background(), "no-such"); err == nil {
		t.Error("diagnostics of an unknown connection: no error")
	}
	_ = second.Close()
}
