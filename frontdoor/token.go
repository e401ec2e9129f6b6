package frontdoor

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/plughost/plughost/lib/ownerfile"
	"github.com/plughost/plughost/lib/secret"
)

// minTokenLen is the shortest token accepted from a token file: shorter
// ones are guessable.
const minTokenLen = 16

// LoadOrCreateToken returns the bearer token stored in path, creating the
// file with a new random token (256 bits, base64url) on first use: mode
// 0600, in a directory created with mode 0700. created says whether it was
// made now. A token file readable by others, empty or too short is an error
// that says how to fix it.
func LoadOrCreateToken(path string) (tok secret.String, created bool, err error) {
	if strings.TrimSpace(path) == "" {
		return "", false, errors.New("gateway token file: no path; set tools.mcp.gateway.token_file")
	}
	tok, err = readToken(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return tok, false, err
	}
	tok, err = writeNewToken(path)
	if errors.Is(err, fs.ErrExist) { // created concurrently by another process
		tok, err = readToken(path)
		return tok, false, err
	}
	return tok, err == nil, err
}

func readToken(path string) (secret.String, error) {
	problem, fix, err := ownerfile.Exposed(path)
	if err != nil {
		return "", fmt.Errorf("gateway token file: %w", err)
	}
	if problem != "" {
		return "", fmt.Errorf("gateway token file %s %s, so other users can read the token; run: %s", path, problem, fix)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("gateway token file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if len(tok) < minTokenLen {
		return "", fmt.Errorf("gateway token file %s holds a token of %d characters, at least %d are required; "+
			"delete the file and a new token is generated at the next start", path, len(tok), minTokenLen)
	}
	return secret.String(tok), nil
}

func writeNewToken(path string) (secret.String, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("gateway token file: create its directory: %w", err)
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("gateway token: random source: %w", err)
	}
	tok := base64.RawURLEncoding.EncodeToString(raw)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("gateway token file: %w", err)
	}
	rerr := ownerfile.Restrict(f)
	var werr error
	if rerr == nil {
		_, werr = f.WriteString(tok + "\n")
	}
	if err := errors.Join(rerr, werr, f.Sync(), f.Close()); err != nil {
		os.Remove(path)
		return "", fmt.Errorf("gateway token file %s: write: %w", path, err)
	}
	return secret.String(tok), nil
}
