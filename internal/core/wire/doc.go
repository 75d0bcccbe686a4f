// Package wire is where package grid converts messages at its edges (its
// grain and its facade's link, internal/core/attach): a message bound for
// an actor on another member of a cluster leaves in its protobuf wire form
// (messages.ToWire), and a wire form that arrives is read back as its plain
// message (messages.FromWire). [Codec] does both for reply.Ask.
// Whether a receiver is elsewhere is one comparison of its PID's address
// with the actor system's, so a message between actors of one process is
// never converted and costs nothing more.
//
// Converting here, and not in a serializer registered with protoactor's
// remote, keeps the packages that speak the protocol (messages, actors,
// the facade) free of remote and of gRPC: only the cluster's own code
// imports them, and remote carries the wire forms as the protobuf messages
// they are.
package wire
