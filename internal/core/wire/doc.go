// Package wire is where package grid converts messages at its edges (its
// grain and its facade's link, internal/core/attach): a message bound for
// an actor on another member of a cluster leaves in its protobuf wire form
// ([ToWire]: wire.proto, the generated Wire* types), and a wire form that
// arrives is read back as its plain message ([FromWire]). [Codec] does both
// for reply.Ask. An extension's state of a call crosses as its JSON, read
// back by the reader the extension registered ([RegisterCallExt]). A
// failure's wire form carries its cause as data; reading it back rebuilds
// the error a cause of another package stands for (a token refusal's
// *auth.TokenError, transport.ErrMessageTooLarge) in Failure.Err, so that
// it matches on every member what it matched where it was made. The
// protobuf package keeps the name mcpconnector.messages, by which remote
// names each message on the wire.
// Whether a receiver is elsewhere is one comparison of its PID's address
// with the actor system's, so a message between actors of one process is
// never converted and costs nothing more.
//
// Converting here, and not in a serializer registered with protoactor's
// remote, asks nothing of remote from the packages that speak the
// protocol: remote carries the wire forms as the protobuf messages they
// are.
package wire
