// Package koanfd embeds the default configuration layers of plughost: the
// files named NN-*.json in this directory, applied in name order below every
// other layer (system dir, user file, environment, flags). Only files matching
// NN-*.json are layers; anything else in the embedded FS is ignored by the
// loader.
package koanfd

import (
	"embed"
	"io/fs"
)

//go:embed *.json
var layers embed.FS

// Layers returns the embedded default layers as a read-only file system whose
// root holds the NN-*.json files.
func Layers() fs.FS { return layers }
