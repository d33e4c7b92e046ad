package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/internal/natstest"
	"github.com/bogd-project/bogd/serve"
)

// deploy is the folder of the deployment examples the README points to.
const deploy = "../../serve/deploy"

// deployedArgs returns the arguments of bogdbench in the systemd unit's
// ExecStart and the Kubernetes manifest's args (a flow sequence of quoted
// strings, JSON as YAML allows).
func deployedArgs(t *testing.T) map[string][]string {
	t.Helper()
	unit, err := os.ReadFile(filepath.Join(deploy, "bogd-serve@.service"))
	if err != nil {
		t.Fatal(err)
	}
	exec := regexp.MustCompile(`(?m)^ExecStart=/usr/local/bin/bogdbench (.*)$`).FindSubmatch(unit)
	if exec == nil {
		t.Fatal("bogd-serve@.service: no ExecStart of /usr/local/bin/bogdbench")
	}
	manifest, err := os.ReadFile(filepath.Join(deploy, "kubernetes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	args := regexp.MustCompile(`(?m)^\s+args: (\[.*\])$`).FindSubmatch(manifest)
	if args == nil {
		t.Fatal("kubernetes.yaml: no args")
	}
	var k8s []string
	if err := json.Unmarshal(args[1], &k8s); err != nil {
		t.Fatal(err)
	}
	return map[string][]string{"systemd": strings.Fields(string(exec[1])), "kubernetes": k8s}
}

// TestDeployExamples runs the deployment examples on loopback: a
// JetStream cluster of three servers from nats-server.conf, and a replica
// as the systemd unit starts it beside one as the Kubernetes manifest
// does, their addresses, paths, NATS URLs and learning tokens moved here.
// A /learn on one, which needs the token, is what the other predicts with.
func TestDeployExamples(t *testing.T) {
	dir := t.TempDir()
	bin := buildBench(t)
	model := trainGerman(t, dir)
	urls := natstest.StartCluster(t, filepath.Join(deploy, "nats-server.conf"), 3)
	replicas := make(map[string]*process)
	const token = "deploy-test-0123456789abcdef"
	tokenFile := filepath.Join(dir, "learn-token")
	os.WriteFile(tokenFile, []byte(token+"\n"), 0o600)
	for name, args := range deployedArgs(t) {
		if args[0] != "serve" {
			t.Fatalf("%s runs bogdbench %s, want serve", name, args[0])
		}
		args = args[1:]
		for i := 0; i+1 < len(args); i += 2 {
			switch args[i] {
			case "--model":
				args[i+1] = model
			case "--snapshots":
				args[i+1] = filepath.Join(dir, name)
				os.Mkdir(args[i+1], 0o755)
			case "--addr":
				args[i+1] = "127.0.0.1:0" // startServe's too
			case "--nats":
				args[i+1] = strings.Join(urls, ",")
			case "--learn-token-file":
				args[i+1] = tokenFile
			}
		}
		replicas[name] = startServe(t, bin, args...)
	}
	lines := germanLines(t)
	for name, p := range replicas {
		if code, _ := tryPost(p.url+"/learn", requestOf(lines[:3], true), nil); code != 401 {
			t.Errorf("%s: /learn without the token: %d", name, code)
		}
	}
	var out serve.Outcome
	if code, err := tryPostAs(http.DefaultClient, replicas["systemd"].url+"/learn", token, requestOf(lines[:3], true), &out); err != nil || code != 200 || out.Learned != 3 {
		t.Fatalf("/learn: %d %+v %v\n%s", code, out, err, replicas["systemd"].log)
	}
	// A 503 after the server's 10 s wait is a client's cue to ask again: a
	// three-server JetStream cluster on a loaded machine may hold a new
	// stream's first record back for longer while it elects its leaders.
	var got serve.PredictResponse
	code := 0
	for try := 0; try < 6 && code != 200; try++ {
		code = post(t, replicas["kubernetes"].url+fmt.Sprintf("/predict?at_least=%d", out.Version), requestOf(lines[:1], false), &got)
	}
	if code != 200 || got.Version != out.Version {
		t.Fatalf("/predict at least %d on the other replica: %d, version %d\n%s", out.Version, code, got.Version, replicas["kubernetes"].log)
	}
	for _, p := range replicas {
		p.stop(t)
	}
}
