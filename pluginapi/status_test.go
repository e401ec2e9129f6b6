package pluginapi

import (
	"context"
	"errors"
	"io"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestErrorsSurviveTheWire(t *testing.T) {
	for _, kind := range []Kind{KindInvalidConfig, KindConnect, KindServerExited, KindPluginExited,
		KindTimeout, KindCanceled, KindProtocolMismatch, KindUnsupported, KindInternal} {
		t.Run(string(kind), func(t *testing.T) {
			sent := &Error{Op: "open", Kind: kind, Err: errors.New("server \"gh\": it broke")}
			got := fromStatus("recv", toStatus("relay", sent))
			var pe *Error
			if !errors.As(got, &pe) {
				t.Fatalf("rebuilt %T %v, want *Error", got, got)
			}
			if diff := cmp.Diff([]string{"open", string(kind), `open: server "gh": it broke`},
				[]string{pe.Op, string(pe.Kind), pe.Error()}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestContextErrorsKeepTheirIdentity(t *testing.T) {
	for _, c := range []struct {
		err  error
		kind Kind
	}{{context.DeadlineExceeded, KindTimeout}, {context.Canceled, KindCanceled}} {
		got := fromStatus("send", toStatus("send", c.err))
		if KindOf(got) != c.kind || !errors.Is(got, c.err) {
			t.Errorf("%v crossed as %v (kind %q); want kind %q and errors.Is", c.err, got, KindOf(got), c.kind)
		}
	}
}

func TestBareStatusesMeanThePluginIsGone(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		kind Kind
	}{
		{"unavailable", status.Error(codes.Unavailable, "transport is closing"), KindPluginExited},
		{"eof", io.EOF, KindServerExited},
		{"deadline", status.Error(codes.DeadlineExceeded, "late"), KindTimeout},
		{"unimplemented", status.Error(codes.Unimplemented, "no"), KindUnsupported},
	} {
		if got := KindOf(fromStatus("recv", c.err)); got != c.kind {
			t.Errorf("%s: kind %q, want %q", c.name, got, c.kind)
		}
	}
	if fromStatus("x", nil) != nil || toStatus("x", nil) != nil {
		t.Error("nil errors must stay nil")
	}
}

func TestEnvironFilters(t *testing.T) {
	env := []string{"PATH=/bin", "HOME=/h", "XDG_DATA_HOME=/x", "AWS_SECRET_ACCESS_KEY=k", "PATHX=1",
		"PLUGHOST_TRANSPORT_PLUGIN=cookie", "PLUGIN_MIN_PORT=1", "USER=u"}
	if diff := cmp.Diff([]string{"PATH=/bin", "HOME=/h", "XDG_DATA_HOME=/x", "USER=u"}, BaseEnviron(env)); diff != "" {
		t.Errorf("BaseEnviron (-want +got):\n%s", diff)
	}
	want := []string{"PATH=/bin", "HOME=/h", "XDG_DATA_HOME=/x", "AWS_SECRET_ACCESS_KEY=k", "PATHX=1", "USER=u"}
	if diff := cmp.Diff(want, PluginEnviron(env)); diff != "" {
		t.Errorf("PluginEnviron (-want +got):\n%s", diff)
	}
}

// On Windows a server also inherits the process variables a program needs
// there, spelled in any case, and still no secret; elsewhere they are
// ordinary variables, and names are case-sensitive.
func TestIsBaseEnvKeyOn(t *testing.T) {
	windowsOnly := []string{"SystemRoot", "windir", "ComSpec", "PATHEXT", "TEMP", "TMP", "USERPROFILE",
		"HOMEDRIVE", "HOMEPATH", "APPDATA", "LOCALAPPDATA", "ProgramData", "ProgramFiles",
		"SystemDrive", "USERNAME", "PROCESSOR_ARCHITECTURE", "Path", "xdg_data_home"}
	never := []string{"AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "PATHX", "ProgramFiles(x86)", "USERDOMAIN", "=C:"}
	for _, key := range windowsOnly {
		if !IsBaseEnvKeyOn("windows", key) || IsBaseEnvKeyOn("linux", key) || IsBaseEnvKeyOn("darwin", key) {
			t.Errorf("%s: windows %v, linux %v, darwin %v; want it inherited on windows alone", key,
				IsBaseEnvKeyOn("windows", key), IsBaseEnvKeyOn("linux", key), IsBaseEnvKeyOn("darwin", key))
		}
	}
	for _, key := range never {
		if IsBaseEnvKeyOn("windows", key) || IsBaseEnvKeyOn("linux", key) {
			t.Errorf("%s is inherited by default", key)
		}
	}
	for _, key := range []string{"PATH", "HOME", "USER", "XDG_CONFIG_HOME"} {
		if !IsBaseEnvKeyOn("windows", key) || !IsBaseEnvKeyOn("linux", key) {
			t.Errorf("%s is not inherited everywhere", key)
		}
	}
	if IsBaseEnvKey("SystemRoot") != (runtime.GOOS == "windows") {
		t.Errorf("IsBaseEnvKey(SystemRoot) = %v on %s", IsBaseEnvKey("SystemRoot"), runtime.GOOS)
	}
}
