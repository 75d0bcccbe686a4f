// Package gridetcd holds no code of its own: its test runs package grid's
// members against a real etcd membership store (Debian's etcd-server,
// started by the test on loopback ports), through protoactor-go's etcd
// cluster provider. It lives in the interop module, beside the other tests
// against real implementations, so that the main module requires no etcd
// client.
//
// The test builds without -race, as the grid's own tests do (protoactor-go's
// cluster has data races of its own; see grid/main_test.go), and skips where
// etcd is not installed, except with CI=true:
//
//	cd interop && CI=true go test -count=1 ./gridetcd/
package gridetcd
