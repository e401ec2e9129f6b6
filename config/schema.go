package config

import (
	"reflect"
	"slices"
	"strings"

	"github.com/plughost/plughost/lib/secret"
)

// kind is the JSON type a schema node accepts.
type kind uint8

const (
	kindObject kind = iota // fixed keys
	kindMap                // any keys, one value schema
	kindList
	kindBool
	kindInt
	kindNumber
	kindString
)

// node describes the JSON accepted at one place of a config layer. The schema
// is derived from the Go types, so the two cannot drift apart.
type node struct {
	kind     kind
	fields   map[string]*node // kindObject
	names    []string         // kindObject: field names, sorted
	elem     *node            // kindMap, kindList
	nullable bool             // JSON null is accepted (pointers, maps, slices)
	secret   bool             // values must never be shown
	open     bool             // kindObject: unknown keys are kept (in Extra)
}

// schema returns the schema of a whole config layer. It is rebuilt on each
// call (it is cheap) so that the package keeps no mutable state.
func schema() *node {
	return build(reflect.TypeFor[fileShape]())
}

var (
	secretType    = reflect.TypeFor[secret.String]()
	secretURLType = reflect.TypeFor[secret.URL]()
)

func build(t reflect.Type) *node {
	switch t.Kind() {
	case reflect.Pointer:
		n := build(t.Elem())
		n.nullable = true
		return n
	case reflect.Struct:
		return buildObject(t)
	case reflect.Map:
		return &node{kind: kindMap, elem: build(t.Elem()), nullable: true}
	case reflect.Slice:
		return &node{kind: kindList, elem: build(t.Elem()), nullable: true}
	case reflect.Bool:
		return &node{kind: kindBool}
	case reflect.Int, reflect.Int64, reflect.Int32:
		return &node{kind: kindInt}
	case reflect.Float64, reflect.Float32:
		return &node{kind: kindNumber}
	}
	return &node{kind: kindString, secret: t == secretType || t == secretURLType}
}

func buildObject(t reflect.Type) *node {
	n := &node{kind: kindObject, fields: map[string]*node{}}
	for f := range t.Fields() {
		name := jsonName(f)
		if name == "" {
			n.open = n.open || f.Name == "Extra"
			continue
		}
		n.fields[name] = build(f.Type)
		n.names = append(n.names, name)
	}
	slices.Sort(n.names)
	return n
}

// jsonName returns the JSON key of a struct field, or "" if it has none.
func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	name, _, _ := strings.Cut(tag, ",")
	if !f.IsExported() || tag == "" || name == "-" {
		return ""
	}
	return name
}

// serverKeys returns the JSON keys of Server.
func serverKeys() map[string]bool {
	keys := map[string]bool{}
	for f := range reflect.TypeFor[Server]().Fields() {
		if name := jsonName(f); name != "" {
			keys[name] = true
		}
	}
	return keys
}

// describe names what n accepts, for messages.
func (n *node) describe() string {
	switch n.kind {
	case kindObject, kindMap:
		return "an object"
	case kindList:
		return "an array of strings"
	case kindBool:
		return "a boolean"
	case kindInt:
		return "an integer"
	case kindNumber:
		return "a number"
	}
	return "a string"
}

// hint says how to write a value n accepts.
func (n *node) hint() string {
	switch n.kind {
	case kindObject, kindMap:
		return `write a JSON object such as {"key": "value"}`
	case kindList:
		return `write a JSON array such as ["a", "b"]`
	case kindBool:
		return "write true or false, without quotes"
	case kindInt:
		return "write a whole number such as 5, without quotes"
	case kindNumber:
		return "write a number such as 30, without quotes"
	}
	return `write the value in double quotes, such as "text"`
}

// hidesValues reports whether values at n (or directly below it) are secret
// and so must not be quoted in messages.
func (n *node) hidesValues() bool {
	return n.secret || (n.elem != nil && n.elem.secret)
}
