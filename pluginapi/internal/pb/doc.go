// Package pb is the gRPC code protoc generates from pluginapi/proto/transport.proto
// (`make proto`): the messages and the Transport service a plugin and the host
// exchange. Nothing outside pluginapi uses it; pluginapi's types are the contract.
package pb
