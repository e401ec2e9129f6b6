package trust_test

import (
	"testing"

	"github.com/plughost/plughost/host/trust"
	"github.com/plughost/plughost/host/trust/trusttest"
)

func TestMemoryStore(t *testing.T) {
	trusttest.Run(t, func(t *testing.T) (a, b trust.Store, reopen func() trust.Store) {
		s := trust.NewMemoryStore()
		return s, s, nil
	})
}
