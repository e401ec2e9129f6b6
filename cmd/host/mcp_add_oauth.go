package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/plughost/plughost/config"
	"github.com/plughost/plughost/lib/secret"
)

// oauthFlags are the flags of `mcp add` that write the server's oauth
// block. The client secret never comes from the command line, where other
// users see it (ps) and shells keep it: it is read from an environment
// variable or from stdin (asked for without echo on a terminal).
type oauthFlags struct {
	enable       bool
	clientID     string
	secretEnv    string
	secretStdin  bool
	secretArgv   string // refused; only there to say why
	metadataURL  string
	issuer       string
	scopes       []string
	callbackPort int
}

// addOAuthFlags defines the oauth flags on fl.
func (o *oauthFlags) addOAuthFlags(fl *pflag.FlagSet) {
	fl.BoolVar(&o.enable, "oauth", false, `log in with OAuth ("oauth": {}; plughost mcp login <name>); implied by every --oauth-* flag`)
	fl.StringVar(&o.clientID, "oauth-client-id", "", "a client registered with the authorization server beforehand (oauth.client_id; no dynamic registration)")
	fl.StringVar(&o.secretEnv, "oauth-client-secret-env", "", "read that client's secret from this environment variable (oauth.client_secret)")
	fl.BoolVar(&o.secretStdin, "oauth-client-secret-stdin", false, "read that client's secret from stdin (asked for without echo on a terminal)")
	fl.StringVar(&o.secretArgv, "oauth-client-secret", "", "refused: use --oauth-client-secret-env or --oauth-client-secret-stdin")
	_ = fl.MarkHidden("oauth-client-secret")
	fl.StringVar(&o.metadataURL, "oauth-client-metadata-url", "", "https URL of a client ID metadata document describing plughost, used as the client id where the authorization server supports them (oauth.client_metadata_url)")
	fl.StringVar(&o.issuer, "oauth-issuer", "", "use this authorization server, whatever the server names (oauth.issuer)")
	fl.StringArrayVar(&o.scopes, "oauth-scope", nil, "scope to ask for at every login (oauth.scopes; repeatable, or several separated by spaces)")
	fl.IntVar(&o.callbackPort, "oauth-callback-port", 0, "port of the login's redirect URI http://127.0.0.1:<port>/callback (oauth.callback_port; default any free port)")
}

// block returns the oauth block the flags ask for (nil when none is
// given), reading the client secret from where the flags say.
func (o *oauthFlags) block(cmd *cobra.Command) (*config.OAuth, error) {
	fl := cmd.Flags()
	if fl.Changed("oauth-client-secret") {
		return nil, usagef("--oauth-client-secret would put the secret on the command line, where other users can see it (ps) " +
			"and the shell history keeps it; give it with --oauth-client-secret-env VAR or --oauth-client-secret-stdin")
	}
	given := false
	fl.VisitAll(func(f *pflag.Flag) { given = given || (f.Changed && strings.HasPrefix(f.Name, "oauth")) })
	if !given {
		return nil, nil
	}
	b := &config.OAuth{ClientID: o.clientID, ClientMetadataURL: o.metadataURL, Issuer: o.issuer, CallbackPort: o.callbackPort}
	for _, s := range o.scopes {
		b.Scopes = append(b.Scopes, strings.Fields(s)...)
	}
	var err error
	b.ClientSecret, err = o.secret(cmd)
	return b, err
}

// secret reads the client secret from the environment variable or stdin.
func (o *oauthFlags) secret(cmd *cobra.Command) (secret.String, error) {
	switch {
	case o.secretEnv != "" && o.secretStdin:
		return "", usagef("give the client secret one way: --oauth-client-secret-env or --oauth-client-secret-stdin")
	case o.secretEnv != "":
		v, ok := os.LookupEnv(o.secretEnv)
		if !ok || v == "" {
			return "", usagef("--oauth-client-secret-env: the environment variable %s is not set; export it first, or use --oauth-client-secret-stdin", o.secretEnv)
		}
		return secret.String(v), nil
	case o.secretStdin:
		return readSecret(cmd.InOrStdin(), cmd.ErrOrStderr(), fmt.Sprintf("OAuth client secret of client %s: ", o.clientID))
	}
	return "", nil
}

// readSecret reads one line from in: on a terminal after asking prompt,
// without echo; from a pipe as it comes.
func readSecret(in io.Reader, prompt io.Writer, question string) (secret.String, error) {
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(prompt, question)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(prompt)
		if err != nil {
			return "", fmt.Errorf("read the client secret: %w", err)
		}
		return nonEmptySecret(string(b))
	}
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("read the client secret from stdin: %w", err)
	}
	return nonEmptySecret(line)
}

func nonEmptySecret(s string) (secret.String, error) {
	s = strings.TrimRight(s, "\r\n")
	if s == "" {
		return "", usagef("--oauth-client-secret-stdin: no client secret on stdin; pipe it in, or type it when asked")
	}
	return secret.String(s), nil
}
