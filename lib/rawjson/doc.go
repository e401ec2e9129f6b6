// Package rawjson scans and decodes JSON in place, for messages of many
// megabytes: objects and arrays are walked without building a tree (values
// are reported as bounds in the input), and string literals are decoded
// straight into a buffer of their final size, or into their own bytes. The
// decoding matches encoding/json's byte for byte.
package rawjson
