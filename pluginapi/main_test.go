package pluginapi_test

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	servePluginIfAsked()
	os.Exit(m.Run())
}
