package pluginapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"github.com/plughost/plughost/pluginapi"
)

// examplePluginVar makes this test binary run as the example's plugin: the
// host side below starts os.Args[0] with it set, as it would start a plugin
// executable.
const examplePluginVar = "PLUGHOST_EXAMPLE_PLUGIN"

// servePluginIfAsked is called by TestMain. A plugin's main is just the
// pluginapi.Serve call.
func servePluginIfAsked() {
	if os.Getenv(examplePluginVar) == "1" {
		pluginapi.Serve(pluginapi.ServeConfig{Transport: loopback{}})
		os.Exit(0)
	}
}

// loopback is a transport whose "server" answers every request with an
// empty result, enough to show the contract's shape.
type loopback struct{}

var _ pluginapi.Transport = loopback{}

func (loopback) Describe(context.Context) (pluginapi.Description, error) {
	return pluginapi.Description{Name: "loopback", Version: "1.0.0"}, nil
}

func (loopback) Validate(_ context.Context, config json.RawMessage) error {
	var c struct{}
	if err := json.Unmarshal(config, &c); err != nil {
		return pluginapi.Errorf("validate", pluginapi.KindInvalidConfig, "loopback config: %v", err)
	}
	return nil
}

func (loopback) Open(context.Context, pluginapi.OpenRequest) (pluginapi.Conn, error) {
	return &loopbackConn{answers: make(chan json.RawMessage, 16), closed: make(chan struct{})}, nil
}

// loopbackConn answers requests on Recv; Close unblocks a waiting Recv.
type loopbackConn struct {
	answers chan json.RawMessage
	once    sync.Once
	closed  chan struct{}
}

var _ pluginapi.Conn = (*loopbackConn)(nil)

func (c *loopbackConn) Send(ctx context.Context, msg json.RawMessage) error {
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(msg, &req); err != nil {
		return pluginapi.Errorf("send", pluginapi.KindInternal, "not JSON: %v", err)
	}
	if req.ID == nil {
		return nil // a notification gets no answer
	}
	answer := json.RawMessage(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{}}`)
	select {
	case c.answers <- answer:
		return nil
	case <-c.closed:
		return pluginapi.Errorf("send", pluginapi.KindServerExited, "connection closed")
	case <-ctx.Done():
		return pluginapi.Errorf("send", pluginapi.KindCanceled, "%v", ctx.Err())
	}
}

func (c *loopbackConn) Recv(ctx context.Context) (json.RawMessage, error) {
	select {
	case msg := <-c.answers:
		return msg, nil
	case <-c.closed:
		return nil, pluginapi.Errorf("recv", pluginapi.KindServerExited, "connection closed")
	case <-ctx.Done():
		return nil, pluginapi.Errorf("recv", pluginapi.KindCanceled, "%v", ctx.Err())
	}
}

func (c *loopbackConn) SessionID() string { return "" }

func (c *loopbackConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// A plugin's main calls Serve with its Transport; the host starts the
// executable with NewClient and talks to it through the same interface.
// Here the test binary itself plays the plugin executable.
func ExampleServe() {
	client, err := pluginapi.NewClient(pluginapi.ClientConfig{
		Path: os.Args[0],
		Env:  []string{examplePluginVar + "=1"},
	})
	if err != nil {
		fmt.Println("start:", err)
		return
	}
	defer client.Kill()
	ctx := context.Background()
	d, err := client.Transport().Describe(ctx)
	if err != nil {
		fmt.Println("describe:", err)
		return
	}
	fmt.Println("plugin:", d.Name, d.Version)
	conn, err := client.Transport().Open(ctx, pluginapi.OpenRequest{ServerName: "demo", Config: json.RawMessage(`{}`)})
	if err != nil {
		fmt.Println("open:", err)
		return
	}
	defer conn.Close()
	if err := conn.Send(ctx, json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
		fmt.Println("send:", err)
		return
	}
	answer, err := conn.Recv(ctx)
	if err != nil {
		fmt.Println("recv:", err)
		return
	}
	fmt.Println("answer:", string(answer))
	// Output:
	// plugin: loopback 1.0.0
	// answer: {"jsonrpc":"2.0","id":1,"result":{}}
}

// KindOf classifies an error, also after it crossed the plugin boundary.
func ExampleKindOf() {
	err := fmt.Errorf("open server %q: %w", "demo",
		pluginapi.Errorf("open", pluginapi.KindInvalidConfig, "command is empty"))
	fmt.Println(pluginapi.KindOf(err))
	// Output: invalid_config
}
