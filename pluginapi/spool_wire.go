package pluginapi

import (
	"path/filepath"

	"github.com/plughost/plughost/pluginapi/internal/pb"
)

// spoolToProto encodes the spool settings of an OpenRequest for the
// plugin. The directory goes as an absolute path: the plugin's working
// directory need not be the host's.
func spoolToProto(s *ResultSpool) *pb.Spool {
	if s == nil {
		return nil
	}
	dir, err := filepath.Abs(s.Dir)
	if err != nil {
		return nil // no working directory: the plugin keeps the message limit
	}
	return &pb.Spool{Dir: dir, MaxBytes: int64(s.MaxBytes), NamePrefix: s.NamePrefix,
		MaxSetting: s.MaxSetting, MessageSetting: s.MessageSetting}
}

// spoolFromProto decodes the spool settings of an Open frame; nil when the
// host sent none or they are unusable.
func spoolFromProto(p *pb.Spool) *ResultSpool {
	if p.GetDir() == "" || p.GetMaxBytes() <= 0 {
		return nil
	}
	prefix := p.GetNamePrefix()
	if prefix != "" {
		prefix = filepath.Base(prefix) // a name, never a path out of Dir
	}
	return &ResultSpool{Dir: p.GetDir(), MaxBytes: int(min(p.GetMaxBytes(), maxMessageBytes)), NamePrefix: prefix,
		MaxSetting: p.GetMaxSetting(), MessageSetting: p.GetMessageSetting()}
}
