package api

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/plughost/plughost/lib/atomicfile"
	"github.com/plughost/plughost/lib/ownerfile"
)

// Runtime says where a running `plughost serve` can be reached. serve
// publishes it in a runtime file for its config file (Publish); commands
// that use the same config find it there (Find).
type Runtime struct {
	// PID is serve's process id; a file whose process is gone is stale.
	PID int `json:"pid"`
	// URL is the base URL of serve's HTTP listener, e.g. http://127.0.0.1:8765.
	URL string `json:"url"`
	// ConfigFile is the user config file serve runs (and watches).
	ConfigFile string `json:"config_file"`
	// TokenFile holds the bearer token; "" when auth is off.
	TokenFile string `json:"token_file,omitempty"`
	// Version is serve's plughost version.
	Version string `json:"version"`
}

// RuntimeFile returns the runtime file of the serve running configFile:
// <home>/.plughost/run/serve-<hash of configFile>.json. Each config file
// has its own, so serves of different configs do not meet.
func RuntimeFile(home, configFile string) string {
	sum := sha256.Sum256([]byte(configFile))
	return filepath.Join(home, ".plughost", "run", "serve-"+hex.EncodeToString(sum[:8])+".json")
}

// Publish writes rt to its runtime file (mode 0600, on Windows an
// owner-only ACL, in a 0700 directory, atomically: atomicfile.Write) and
// returns a function that removes it again, unless another serve has
// replaced it meanwhile.
func Publish(home string, rt Runtime) (remove func(), err error) {
	path := RuntimeFile(home, rt.ConfigFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("runtime file: %w", err)
	}
	b, err := json.MarshalIndent(rt, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("runtime file: %w", err)
	}
	if err := atomicfile.Write(path, append(b, '\n')); err != nil {
		return nil, fmt.Errorf("runtime file: %w", err)
	}
	return func() {
		if cur, err := read(path); err == nil && cur.PID == rt.PID {
			os.Remove(path)
		}
	}, nil
}

// Find returns the serve published for configFile, if one is running: a
// missing file, a file of a process that is gone (stale) or an unreadable
// one all mean none.
func Find(home, configFile string) (Runtime, bool) {
	rt, err := read(RuntimeFile(home, configFile))
	if err != nil || rt.ConfigFile != configFile || !alive(rt.PID) {
		return Runtime{}, false
	}
	return rt, true
}

func read(path string) (Runtime, error) {
	b, err := atomicfile.ReadFile(path)
	if err != nil {
		return Runtime{}, err
	}
	var rt Runtime
	if err := json.Unmarshal(b, &rt); err != nil {
		return Runtime{}, err
	}
	return rt, nil
}

// errNoToken is wrapped when the token file cannot be read.
var errNoToken = errors.New("cannot read the gateway token")

// readToken reads the bearer token of rt (none when auth is off). The file
// is the gateway's 0600 token file; a file others can read is refused.
func readToken(rt Runtime) (string, error) {
	if rt.TokenFile == "" {
		return "", nil
	}
	problem, fix, err := ownerfile.Exposed(rt.TokenFile)
	if err != nil {
		return "", fmt.Errorf("%w: %w", errNoToken, err)
	}
	if problem != "" {
		return "", fmt.Errorf("%w: %s %s; run: %s", errNoToken, rt.TokenFile, problem, fix)
	}
	b, err := os.ReadFile(rt.TokenFile)
	if err != nil {
		return "", fmt.Errorf("%w: %w", errNoToken, err)
	}
	return strings.TrimSpace(string(b)), nil
}
