package childenv

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"

	"github.com/plughost/plughost/pluginapi"
)

// Build returns the environment ("KEY=value" entries sorted by key) of a
// server process whose parent has the environment parent.
//
// Without inheritEnv only the allowlisted variables of parent are kept (see
// the package doc); with it, all of them. The variables of envFile (a path;
// "" means none, see ParseEnvFile for the format) are then added, overriding
// inherited ones, and env overrides both. When parent holds a key twice the
// last entry wins, as in os/exec. On Windows keys compare case-insensitively.
func Build(parent []string, envFile string, env map[string]string, inheritEnv bool) ([]string, error) {
	var file map[string]string
	if envFile != "" {
		var err error
		if file, err = readEnvFile(envFile); err != nil {
			return nil, err
		}
	}
	return merge(runtime.GOOS, parent, file, env, inheritEnv), nil
}

// readEnvFile opens and parses the env file at path.
func readEnvFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("env_file: %w (fix the path or remove env_file)", err)
	}
	defer f.Close()
	return ParseEnvFile(path, f)
}

// entry is one variable with the spelling of its key that wins.
type entry struct{ key, value string }

// merge layers parent (filtered unless inheritEnv), file and env, in that
// order, and returns the result sorted by key. goos selects the allowlist and
// the key comparison, so tests can cover Windows anywhere.
func merge(goos string, parent []string, file, env map[string]string, inheritEnv bool) []string {
	fold := func(k string) string { return k }
	if goos == "windows" {
		fold = strings.ToUpper
	}
	vars := make(map[string]entry)
	for _, kv := range parent {
		k, v, ok := splitEntry(kv)
		if !ok || (!inheritEnv && !pluginapi.IsBaseEnvKeyOn(goos, k)) {
			continue
		}
		vars[fold(k)] = entry{k, v}
	}
	for _, layer := range []map[string]string{file, env} {
		for k, v := range layer {
			vars[fold(k)] = entry{k, v}
		}
	}
	out := make([]string, 0, len(vars))
	for _, e := range vars {
		out = append(out, e.key+"="+e.value)
	}
	// Ties (a key containing "=", like "HOME=" next to "HOME") fall back to
	// the whole entry, so the order never depends on map iteration.
	sort.Slice(out, func(i, j int) bool {
		ki, kj := keyOf(out[i]), keyOf(out[j])
		return ki < kj || ki == kj && out[i] < out[j]
	})
	return out
}

// splitEntry splits "KEY=value". The '=' is searched from the second byte
// because Windows keeps per-drive entries such as "=C:=C:\dir".
func splitEntry(kv string) (key, value string, ok bool) {
	if len(kv) == 0 {
		return "", "", false
	}
	i := strings.IndexByte(kv[1:], '=')
	if i < 0 {
		return "", "", false
	}
	return kv[:i+1], kv[i+2:], true
}

// keyOf returns the key of a "KEY=value" entry.
func keyOf(kv string) string {
	k, _, _ := splitEntry(kv)
	return k
}
