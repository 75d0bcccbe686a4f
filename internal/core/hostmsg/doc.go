// Package hostmsg holds the messages that the module's own hosts of a
// supervisor (package plugin's facade and package grid's grain) send to
// package actors' supervisor beside the protocol of package messages,
// and that no user sends: [FinishCalls] before a grain hands its server
// over, and [WatchDirect] for the calls a host in the supervisor's process
// sends straight to the connection.
package hostmsg
