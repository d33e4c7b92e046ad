// Package natstest runs a NATS server with JetStream inside a test process.
//
// It listens on loopback, so that the tests of the JetStream log and of the
// replicas need no server installed.
package natstest

import (
	"fmt"
	"net"
	"slices"
	"strings"
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

// StartCluster starts the JetStream cluster of a deployment's
// nats-server.conf on loopback: n servers, each from conf as read with
// NATS_NAME=nats-1 … nats-n (the conf must name them so, cluster them and
// turn JetStream on), their client, cluster and route addresses moved to
// free loopback ports and their stores to temporary directories. It
// returns the servers' client URLs once the cluster has a JetStream
// leader. The servers stop when the test ends.
func StartCluster(t *testing.T, conf string, n int) []string {
	t.Helper()
	ports := make([]int, n)
	var routes []string
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports[i] = ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", ports[i]))
	}
	var servers []*server.Server
	var urls []string
	for i := range n {
		t.Setenv("NATS_NAME", fmt.Sprintf("nats-%d", i+1))
		opts, err := server.ProcessConfigFile(conf)
		if err != nil {
			t.Fatalf("%s: %v", conf, err)
		}
		if opts.ServerName != fmt.Sprintf("nats-%d", i+1) || !opts.JetStream || opts.Cluster.Name == "" || len(opts.Routes) != n {
			t.Fatalf("%s as nats-%d: server %q, JetStream %v, cluster %q, %d routes: want nats-%d, JetStream, a cluster of %d", conf, i+1, opts.ServerName, opts.JetStream, opts.Cluster.Name, len(opts.Routes), i+1, n)
		}
		opts.Host, opts.Port, opts.NoSigs, opts.NoLog = "127.0.0.1", server.RANDOM_PORT, true, true
		opts.Cluster.Host, opts.Cluster.Port = "127.0.0.1", ports[i]
		opts.Routes = server.RoutesFromStr(strings.Join(routes, ","))
		opts.StoreDir = t.TempDir()
		ns, err := server.NewServer(opts)
		if err != nil {
			t.Fatal(err)
		}
		go ns.Start()
		t.Cleanup(func() {
			ns.Shutdown()
			ns.WaitForShutdown()
		})
		servers = append(servers, ns)
	}
	for _, ns := range servers {
		if !ns.ReadyForConnections(10 * time.Second) {
			t.Fatal("a NATS server of the cluster did not start within 10 s")
		}
		urls = append(urls, ns.ClientURL())
	}
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		leader := slices.ContainsFunc(servers, (*server.Server).JetStreamIsLeader)
		if leader && !slices.ContainsFunc(servers, func(s *server.Server) bool { return !s.JetStreamIsCurrent() }) {
			return urls
		}
		if time.Since(start) > 30*time.Second {
			t.Fatal("the JetStream cluster elected no leader within 30 s")
		}
	}
}
