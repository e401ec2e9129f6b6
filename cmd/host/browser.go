package main

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// openBrowser opens url in the user's browser without waiting for it:
// $BROWSER (a ':'-separated list of commands, tried in order; "%s" in one is
// replaced by the URL, else the URL is appended), else xdg-open (open on
// macOS).
func openBrowser(url string) error {
	var errs []error
	for _, cmd := range browserCommands(os.Getenv("BROWSER"), runtime.GOOS, url) {
		c := exec.Command(cmd[0], cmd[1:]...)
		if err := c.Start(); err != nil {
			errs = append(errs, err)
			continue
		}
		_ = c.Process.Release() // the browser outlives plughost
		return nil
	}
	if len(errs) == 0 {
		return errors.New("no browser command")
	}
	return errors.Join(errs...)
}

// browserCommands lists the commands to try, each as argv.
func browserCommands(env, goos, url string) [][]string {
	var out [][]string
	for _, entry := range strings.Split(env, ":") {
		fields := strings.Fields(entry)
		if len(fields) == 0 {
			continue
		}
		replaced := false
		for i, f := range fields {
			if strings.Contains(f, "%s") {
				fields[i], replaced = strings.ReplaceAll(f, "%s", url), true
			}
		}
		if !replaced {
			fields = append(fields, url)
		}
		out = append(out, fields)
	}
	if goos == "darwin" {
		return append(out, []string{"open", url})
	}
	return append(out, []string{"xdg-open", url})
}
