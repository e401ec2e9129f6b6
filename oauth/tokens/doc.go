// Package tokens owns the OAuth logins of plughost's remote servers: it keeps
// each server's tokens and client registration in a Store (by default one
// 0600 JSON file per server under ~/.plughost/oauth, written atomically),
// hands transports the current Authorization value, refreshes tokens before
// they expire — in one place, whichever request or process notices first —
// and turns a server's refusal into a clear state: "needs login", with the
// scopes a step-up asks for. Login runs the browser flow of package oauth.
//
// Tokens, refresh tokens and client secrets are secret.String values in
// memory and appear in no log, error or status.
package tokens
