//go:build unix

package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/host"
	"github.com/plughost/plughost/internal/inprocess"
	"github.com/plughost/plughost/pluginapi"
)

// A Host from a config, a Session on it, and a call. The server here runs
// in process so the example needs nothing installed; in a real config it is
// a command or a URL, and the Options are usually just the environment.
func ExampleNew() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir, err := os.MkdirTemp("", "plughost-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	loaded, err := config.Load(config.LoadOptions{
		UserFile: filepath.Join(dir, "config.json"),
		UserData: []byte(`{"tools": {"mcp": {"enabled": true,
			"servers": {"demo": {"enabled": true, "command": "demo-server"}}}}}`),
		SystemDir: filepath.Join(dir, "none"),
		Home:      dir,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	h, err := host.New(loaded.Config, host.Options{
		ConfigDir:  dir,
		Transports: map[string]pluginapi.Transport{"stdio": inprocess.New(map[string]*mcpserver.MCPServer{"demo": echoServer()})},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	h.Start(ctx)
	defer h.Close()
	if err := h.WaitSettled(ctx); err != nil {
		fmt.Println(err)
		return
	}

	s := h.NewSession()
	res, err := s.Call(ctx, "mcp_demo_echo", json.RawMessage(`{"text": "hi"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text())
	// Output: hi
}

// echoServer is an MCP server with one tool, echo.
func echoServer() *mcpserver.MCPServer {
	s := mcpserver.NewMCPServer("demo", "1.0.0", mcpserver.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("text", "")), nil
		})
	return s
}
