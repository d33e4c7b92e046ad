// Package natstest runs a NATS server with JetStream inside a test
// process, on loopback, so that the tests of the JetStream log and of the
// replicas need no server installed.
package natstest

import (
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Start starts a JetStream server on a free loopback port, storing in a
// temporary directory, and returns its client URL. The server stops when
// the test ends. It syncs on JetStream's default schedule, not every
// write (jetstream { sync_interval: always }, 14 times slower in
// TestReplicas): the tests crash replicas, never the server.
func Start(t testing.TB) string {
	t.Helper()
	ns, err := server.NewServer(&server.Options{
		Host: "127.0.0.1", Port: server.RANDOM_PORT, NoSigs: true, NoLog: true,
		JetStream: true, StoreDir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		t.Fatal("the NATS server did not start within 10 s")
	}
	t.Cleanup(func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	})
	return ns.ClientURL()
}
