package demoserver

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

type hashArgs struct {
	Text      string `json:"text"`
	Algorithm string `json:"algorithm"`
}

func hashTool() server.ServerTool {
	tool := newTool("hash",
		"Computes a cryptographic digest of the UTF-8 bytes of a text and returns it as lower-case hex. "+
			"Algorithms: sha256 (default), sha512, sha1, md5 (sha1 and md5 only for checksums, not security).",
		hints("Hash", true),
		mcp.WithString("text", mcp.Required(), mcp.Description("Text to hash (its UTF-8 bytes, no trailing newline added).")),
		mcp.WithString("algorithm",
			mcp.Enum("sha256", "sha512", "sha1", "md5"),
			mcp.DefaultString("sha256"),
			mcp.Description("Digest algorithm; sha256 when omitted."),
		),
	)
	return server.ServerTool{Tool: tool, Handler: mcp.NewTypedToolHandler(hashHandler)}
}

func hashHandler(_ context.Context, _ mcp.CallToolRequest, args hashArgs) (*mcp.CallToolResult, error) {
	h, err := newHash(args.Algorithm)
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	h.Write([]byte(args.Text))
	return mcp.NewToolResultText(hex.EncodeToString(h.Sum(nil))), nil
}

func newHash(algorithm string) (hash.Hash, error) {
	switch algorithm {
	case "", "sha256":
		return sha256.New(), nil
	case "sha512":
		return sha512.New(), nil
	case "sha1":
		return sha1.New(), nil
	case "md5":
		return md5.New(), nil
	}
	return nil, fmt.Errorf("unknown algorithm %q: use sha256, sha512, sha1 or md5", algorithm)
}
