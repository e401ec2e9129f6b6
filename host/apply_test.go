//go:build unix

package host

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/plughost/plughost/config"
)

// Every global section of tools.mcp is compared by a reload (so that a new
// setting is reported when it changes): changing each field alone shows up
// under its JSON path.
func TestChangedSettingsCoversEveryField(t *testing.T) {
	typ := reflect.TypeFor[config.MCP]()
	for f := range typ.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "servers" {
			continue // servers are diffed one by one
		}
		var a, b config.MCP
		fv := reflect.ValueOf(&b).Elem().FieldByIndex(f.Index)
		switch fv.Kind() {
		case reflect.Bool:
			fv.SetBool(true)
		case reflect.Int:
			fv.SetInt(7)
		case reflect.String:
			fv.SetString("x")
		case reflect.Struct:
			// flip the first settable leaf
			setFirstLeaf(t, fv)
		default:
			t.Fatalf("field %s: kind %s not handled by this test", f.Name, fv.Kind())
		}
		if got := changedSettings(a, b); !slices.Equal(got, []string{"tools.mcp." + name}) {
			t.Errorf("changing %s: changedSettings = %v, want [tools.mcp.%s]", f.Name, got, name)
		}
	}
}

func setFirstLeaf(t *testing.T, v reflect.Value) {
	t.Helper()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
			return
		case reflect.Int:
			f.SetInt(7)
			return
		case reflect.Float64:
			f.SetFloat(7)
			return
		case reflect.String:
			f.SetString("x")
			return
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
			return
		}
	}
	t.Fatalf("%s has no simple field to change", v.Type())
}
