package pluginapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
)

// ClientConfig says how the host launches one transport plugin process.
type ClientConfig struct {
	// Path is the plugin executable.
	Path string
	// SHA256, when set, is the hex digest the executable must have; a mismatch
	// refuses to launch it.
	SHA256 string
	// Env is the plugin's whole environment: the host's own is never passed
	// implicitly (go-plugin SkipHostEnv).
	Env []string
	// Logger receives the plugin's log lines (re-levelled from its JSON stderr).
	Logger hclog.Logger
	// Stderr, when set, also receives the plugin's raw stderr.
	Stderr io.Writer
	// StartTimeout bounds process start and handshake; 0 means 15 s.
	StartTimeout time.Duration
}

// ErrPinMismatch is wrapped by NewClient's error when the plugin executable's
// sha256 differs from ClientConfig.SHA256; the plugin is not started.
var ErrPinMismatch = errors.New("plugin executable does not match its sha256 pin")

// fileSHA256 returns the hex sha256 of a file, or a note saying why not.
func fileSHA256(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Client is a running plugin process as seen from the host.
type Client struct {
	pc        *plugin.Client
	transport *grpcClient
}

// NewClient launches the plugin at cfg.Path, performs the handshake and
// returns a Client whose Transport talks to it. The caller must Kill it.
func NewClient(cfg ClientConfig) (*Client, error) {
	cmd := exec.Command(cfg.Path)
	cmd.Env = append([]string(nil), cfg.Env...)
	logger := cfg.Logger
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	timeout := cfg.StartTimeout
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	pcfg := &plugin.ClientConfig{
		HandshakeConfig:  Handshake(),
		Plugins:          plugin.PluginSet{pluginName: &transportPlugin{}},
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Logger:           logger,
		StartTimeout:     timeout,
		SkipHostEnv:      true,
		GRPCDialOptions:  dialOptions(),
		Stderr:           cfg.Stderr,
	}
	if cfg.SHA256 != "" {
		sum, err := hex.DecodeString(strings.TrimSpace(cfg.SHA256))
		if err != nil || len(sum) != sha256.Size {
			return nil, Errorf("start", KindInvalidConfig, "plugin %s: sha256 pin %q is not 64 hex characters", cfg.Path, cfg.SHA256)
		}
		pcfg.SecureConfig = &plugin.SecureConfig{Checksum: sum, Hash: sha256.New()}
	}
	pc := plugin.NewClient(pcfg)
	rpc, err := pc.Client()
	if err != nil {
		pc.Kill()
		if errors.Is(err, plugin.ErrChecksumsDoNotMatch) {
			return nil, &Error{Op: "start", Kind: KindConnect, Err: fmt.Errorf("%w: %s has sha256 %s, pinned %s",
				ErrPinMismatch, cfg.Path, fileSHA256(cfg.Path), strings.ToLower(strings.TrimSpace(cfg.SHA256)))}
		}
		return nil, &Error{Op: "start", Kind: KindPluginExited, Err: fmt.Errorf("plugin %s: %w", cfg.Path, err)}
	}
	raw, err := rpc.Dispense(pluginName)
	if err != nil {
		pc.Kill()
		return nil, &Error{Op: "start", Kind: KindPluginExited, Err: fmt.Errorf("plugin %s: %w", cfg.Path, err)}
	}
	return &Client{pc: pc, transport: raw.(*grpcClient)}, nil
}

// Transport returns the plugin's Transport.
func (c *Client) Transport() Transport { return c.transport }

// Diagnostics asks the plugin for its server's diagnostics (stderr tail,
// pid): those of its most recent connection.
func (c *Client) Diagnostics(ctx context.Context) (Diagnostics, error) {
	return c.transport.Diagnostics(ctx, "")
}

// ConnectionDiagnostics asks the plugin for the diagnostics of the server
// of one connection it opened, named by ConnectionID, even for a while
// after the connection ended; "" asks about its most recent connection. A
// plugin process serving many connections (FeatureSharedProcess) needs the
// name.
func (c *Client) ConnectionDiagnostics(ctx context.Context, connectionID string) (Diagnostics, error) {
	return c.transport.Diagnostics(ctx, connectionID)
}

// ConnectionID returns the plugin's id of a connection opened through a
// Client's Transport, or "" for any other Conn (or a plugin that does not
// name its connections).
func ConnectionID(conn Conn) string {
	if c, ok := conn.(interface{ connectionID() string }); ok {
		return c.connectionID()
	}
	return ""
}

// Exited reports whether the plugin process has ended.
func (c *Client) Exited() bool { return c.pc.Exited() }

// PID returns the plugin process id, or 0 if unknown.
func (c *Client) PID() int {
	if rc := c.pc.ReattachConfig(); rc != nil {
		return rc.Pid
	}
	return 0
}

// Kill ends the plugin process (gracefully first, as go-plugin does) and
// waits for it. Plugins kill their servers when their connections close.
func (c *Client) Kill() { c.pc.Kill() }
