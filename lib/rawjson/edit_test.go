package rawjson

import "testing"

func TestReplaceKeepsEveryOtherByte(t *testing.T) {
	cases := []struct {
		name, in, value string
		path            []string
		want            string
		ok              bool
	}{
		{"top", `{"a":1, "name" : "x","b":[1]}`, `"y"`, []string{"name"}, `{"a":1, "name" : "y","b":[1]}`, true},
		{"nested", `{"_meta":{"progressToken":7,"k":"v"},"x":1}`, `"plughost-1"`, []string{"_meta", "progressToken"}, `{"_meta":{"progressToken":"plughost-1","k":"v"},"x":1}`, true},
		{"absent", `{"_meta":{}}`, `1`, []string{"_meta", "progressToken"}, `{"_meta":{}}`, false},
		{"not an object", `{"_meta":5}`, `1`, []string{"_meta", "progressToken"}, `{"_meta":5}`, false},
		{"invalid", `{"name":`, `1`, []string{"name"}, `{"name":`, false},
		{"last duplicate", `{"n":1,"n":2}`, `3`, []string{"n"}, `{"n":1,"n":3}`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := Replace([]byte(c.in), []byte(c.value), c.path...)
			if string(got) != c.want || ok != c.ok {
				t.Errorf("Replace = %s, %v; want %s, %v", got, ok, c.want, c.ok)
			}
		})
	}
}

func TestString(t *testing.T) {
	if s, ok := String([]byte(`{"a":{"b":"x\u00e9\n"}}`), "a", "b"); !ok || s != "xé\n" {
		t.Errorf("String = %q, %v", s, ok)
	}
	if _, ok := String([]byte(`{"a":{"b":1}}`), "a", "b"); ok {
		t.Error("a number is not a string")
	}
}

func TestDelete(t *testing.T) {
	cases := []struct {
		name, in string
		path     []string
		want     string
		ok       bool
	}{
		{"nested", `{"a":1,"_meta":{"k":"v", "x":{"y":2}},"b":[1, 2]}`, []string{"_meta", "k"}, `{"a":1,"_meta":{"x":{"y":2}},"b":[1, 2]}`, true},
		{"last one", `{"_meta":{"k":"v"}}`, []string{"_meta", "k"}, `{"_meta":{}}`, true},
		{"top", `{"a":1,"b":2}`, []string{"a"}, `{"b":2}`, true},
		{"absent", `{"a":1}`, []string{"b"}, `{"a":1}`, false},
		{"no parent", `{"a":1}`, []string{"_meta", "k"}, `{"a":1}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := Delete([]byte(c.in), c.path...)
			if string(got) != c.want || ok != c.ok {
				t.Errorf("Delete = %s, %v; want %s, %v", got, ok, c.want, c.ok)
			}
		})
	}
}
