package pluginapi

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/plughost/plughost/pluginapi/internal/pb"
)

// maxMessageBytes bounds one JSON-RPC message on the wire, whatever the
// configured limit (which the host passes in OpenRequest.MaxMessageBytes and
// enforces per connection; config allows at most 1 GiB). Tool results of
// tens of megabytes are normal (logs, page dumps); the host bounds them later.
const maxMessageBytes = 1 << 30

// windowBytes is the static HTTP/2 flow-control window on both sides; a fixed
// 1 MB window beats BDP probing for a local relay of small messages.
const windowBytes = 1 << 20

// transportPlugin is the go-plugin glue: it builds the gRPC server in the
// plugin and the client shim in the host.
type transportPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	server *grpcServer // the plugin side; nil in the host
}

func (p *transportPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterTransportServer(s, p.server)
	return nil
}

func (p *transportPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, cc *grpc.ClientConn) (any, error) {
	return &grpcClient{client: pb.NewTransportClient(cc)}, nil
}

func serverOptions(opts []grpc.ServerOption) []grpc.ServerOption {
	return append(opts,
		grpc.InitialWindowSize(windowBytes),
		grpc.InitialConnWindowSize(windowBytes),
		grpc.MaxRecvMsgSize(maxMessageBytes),
		grpc.MaxSendMsgSize(maxMessageBytes),
	)
}

func dialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithInitialWindowSize(windowBytes),
		grpc.WithInitialConnWindowSize(windowBytes),
		grpc.WithDefaultCallOptions(
			grpc.MaxCallRecvMsgSize(maxMessageBytes),
			grpc.MaxCallSendMsgSize(maxMessageBytes),
		),
	}
}
