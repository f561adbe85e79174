package check

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// parts are the arguments `cardroom` accepts for one part of the suite
// (cmd/cardroom run.go); each Deployment runs exactly one of them.
var parts = []string{"table", "tournament", "wallet", "seating", "gateway"}

// kustomization is the part of a kustomization.yaml these tests read.
type kustomization struct {
	APIVersion string           `json:"apiVersion"`
	Kind       string           `json:"kind"`
	Namespace  string           `json:"namespace,omitempty"`
	Resources  []string         `json:"resources"`
	Labels     []map[string]any `json:"labels,omitempty"`
	Images     []image          `json:"images,omitempty"`
	Replicas   []replicas       `json:"replicas,omitempty"`
}

type image struct {
	Name    string `json:"name"`
	NewName string `json:"newName"`
	NewTag  string `json:"newTag"`
}

type replicas struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// base is deploy/k8s/base parsed into typed objects.
type base struct {
	deployments map[string]*appsv1.Deployment
	services    map[string]*corev1.Service
	configMaps  map[string]*corev1.ConfigMap
}

func readKustomization(t *testing.T, dir string) kustomization {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k kustomization
	if err := yaml.UnmarshalStrict(raw, &k); err != nil {
		t.Fatalf("%s/kustomization.yaml: %v", dir, err)
	}
	return k
}

// loadBase parses every resource of the base strictly: a misspelt field
// fails here instead of being dropped by the API server.
func loadBase(t *testing.T) base {
	t.Helper()
	b := base{deployments: map[string]*appsv1.Deployment{}, services: map[string]*corev1.Service{}, configMaps: map[string]*corev1.ConfigMap{}}
	k := readKustomization(t, "../base")
	if len(k.Resources) == 0 {
		t.Fatal("base lists no resources")
	}
	for _, res := range k.Resources {
		raw, err := os.ReadFile(filepath.Join("../base", res))
		if err != nil {
			t.Fatalf("base resource %s: %v", res, err)
		}
		for i, doc := range bytes.Split(raw, []byte("\n---\n")) {
			var meta struct{ Kind string }
			if err := yaml.Unmarshal(doc, &meta); err != nil {
				t.Fatalf("%s document %d: %v", res, i, err)
			}
			var name string
			var err error
			switch meta.Kind {
			case "Deployment":
				var d appsv1.Deployment
				err = yaml.UnmarshalStrict(doc, &d)
				name, b.deployments[d.Name] = d.Name, &d
			case "Service":
				var s corev1.Service
				err = yaml.UnmarshalStrict(doc, &s)
				name, b.services[s.Name] = s.Name, &s
			case "ConfigMap":
				var c corev1.ConfigMap
				err = yaml.UnmarshalStrict(doc, &c)
				name, b.configMaps[c.Name] = c.Name, &c
			default:
				t.Fatalf("%s document %d: unexpected kind %q", res, i, meta.Kind)
			}
			if err != nil {
				t.Fatalf("%s document %d (%s): %v", res, i, meta.Kind, err)
			}
			if name == "" {
				t.Fatalf("%s document %d (%s) has no name", res, i, meta.Kind)
			}
		}
	}
	return b
}

// TestDeploymentsRunOnePartEach: one Deployment per part, all from the
// same image, each with probes, resource requests and a non-root,
// read-only container.
func TestDeploymentsRunOnePartEach(t *testing.T) {
	t.Parallel()
	b := loadBase(t)
	var seen []string
	for name, d := range b.deployments {
		cs := d.Spec.Template.Spec.Containers
		if len(cs) != 1 {
			t.Errorf("%s: %d containers, want 1", name, len(cs))
			continue
		}
		c := cs[0]
		if c.Image != "cardroom" {
			t.Errorf("%s: image %q, want the one cardroom image", name, c.Image)
		}
		if len(c.Args) != 1 || !slices.Contains(parts, c.Args[0]) {
			t.Errorf("%s: args %v, want one of %v", name, c.Args, parts)
			continue
		}
		seen = append(seen, c.Args[0])
		if name != "cardroom-"+c.Args[0] {
			t.Errorf("%s runs part %s", name, c.Args[0])
		}
		if c.ReadinessProbe == nil || c.LivenessProbe == nil {
			t.Errorf("%s: readiness and liveness probes are required", name)
		}
		if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
			t.Errorf("%s: cpu and memory requests are required", name)
		}
		sc := c.SecurityContext
		if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			t.Errorf("%s: must run as non-root with a read-only root filesystem", name)
		}
		sel := d.Spec.Selector.MatchLabels
		for k, v := range sel {
			if d.Spec.Template.Labels[k] != v {
				t.Errorf("%s: selector %s=%s does not match its pod labels", name, k, v)
			}
		}
		if c.Args[0] == "table" {
			checkTableReplicas(t, d)
		}
	}
	slices.Sort(seen)
	want := slices.Clone(parts)
	slices.Sort(want)
	if !slices.Equal(seen, want) {
		t.Fatalf("parts deployed %v, want %v", seen, want)
	}
}

// TestServicesSelectDeployments: every Service selects exactly one
// Deployment's pods and targets a port that Deployment's container names.
func TestServicesSelectDeployments(t *testing.T) {
	t.Parallel()
	b := loadBase(t)
	if len(b.services) != len(b.deployments) {
		t.Fatalf("%d services for %d deployments", len(b.services), len(b.deployments))
	}
	for name, s := range b.services {
		var matched []*appsv1.Deployment
		for _, d := range b.deployments {
			ok := len(s.Spec.Selector) > 0
			for k, v := range s.Spec.Selector {
				ok = ok && d.Spec.Template.Labels[k] == v
			}
			if ok {
				matched = append(matched, d)
			}
		}
		if len(matched) != 1 {
			t.Errorf("service %s selects %d deployments, want 1", name, len(matched))
			continue
		}
		c := matched[0].Spec.Template.Spec.Containers[0]
		for _, p := range s.Spec.Ports {
			if !slices.ContainsFunc(c.Ports, func(cp corev1.ContainerPort) bool { return cp.Name == p.TargetPort.String() }) {
				t.Errorf("service %s targets port %q that %s does not name", name, p.TargetPort.String(), matched[0].Name)
			}
		}
	}
}

// TestConfigPointsAtServices: every CARDROOM_*_ADDR in the ConfigMap names
// a Service of the base and its port, and every Deployment reads the
// ConfigMap and the secret that holds REDIS_URL, DATABASE_URL and the keys.
func TestConfigPointsAtServices(t *testing.T) {
	t.Parallel()
	b := loadBase(t)
	cm, ok := b.configMaps["cardroom-config"]
	if !ok {
		t.Fatal("no cardroom-config ConfigMap")
	}
	addrs := 0
	for k, v := range cm.Data {
		if !strings.HasSuffix(k, "_ADDR") {
			continue
		}
		addrs++
		host, portText, _ := strings.Cut(v, ":")
		port, err := strconv.ParseInt(portText, 10, 32)
		if err != nil {
			t.Errorf("%s=%s: bad port: %v", k, v, err)
			continue
		}
		s, ok := b.services[host]
		if !ok {
			t.Errorf("%s=%s: no service %s", k, v, host)
			continue
		}
		if !slices.ContainsFunc(s.Spec.Ports, func(p corev1.ServicePort) bool { return p.Port == int32(port) }) {
			t.Errorf("%s=%s: service %s has no port %d", k, v, host, port)
		}
	}
	if addrs != 4 {
		t.Errorf("%d service addresses configured, want the 4 services'", addrs)
	}
	for name, d := range b.deployments {
		var cms, secrets []string
		for _, e := range d.Spec.Template.Spec.Containers[0].EnvFrom {
			if e.ConfigMapRef != nil {
				cms = append(cms, e.ConfigMapRef.Name)
			}
			if e.SecretRef != nil {
				secrets = append(secrets, e.SecretRef.Name)
			}
		}
		if !slices.Contains(cms, "cardroom-config") || !slices.Contains(secrets, "cardroom-secrets") {
			t.Errorf("%s: must read cardroom-config and cardroom-secrets (got %v, %v)", name, cms, secrets)
		}
	}
}

// TestOverlaysPatchOnlyTheBase: each overlay builds on the base, names the
// one image, and sets replicas only for Deployments the base defines.
func TestOverlaysPatchOnlyTheBase(t *testing.T) {
	t.Parallel()
	b := loadBase(t)
	dirs, err := filepath.Glob("../overlays/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("overlays: %v, %v", dirs, err)
	}
	for _, dir := range dirs {
		k := readKustomization(t, dir)
		if !slices.Contains(k.Resources, "../../base") {
			t.Errorf("%s: does not build on ../../base", dir)
		}
		if k.Namespace == "" {
			t.Errorf("%s: no namespace", dir)
		}
		if len(k.Images) != 1 || k.Images[0].Name != "cardroom" || k.Images[0].NewTag == "" {
			t.Errorf("%s: images %+v, want the cardroom image with a tag", dir, k.Images)
		}
		for _, r := range k.Replicas {
			d, ok := b.deployments[r.Name]
			if !ok {
				t.Errorf("%s: replicas for %s, which the base does not define", dir, r.Name)
				continue
			}
			if r.Count < 1 {
				t.Errorf("%s: %d replicas of %s, want at least one", dir, r.Count, d.Name)
			}
		}
	}
}

// checkTableReplicas: the table part runs several replicas, each
// advertising its pod address and gRPC port with the leases of the tables
// it deals, so that the others forward calls to it; a rolling update keeps
// every table served.
func checkTableReplicas(t *testing.T, d *appsv1.Deployment) {
	t.Helper()
	if d.Spec.Replicas == nil || *d.Spec.Replicas < 2 {
		t.Errorf("%s: the table part runs at least two replicas", d.Name)
	}
	if d.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType {
		t.Errorf("%s: Recreate stops every replica at once; replicas forward to each other, roll them", d.Name)
	}
	c := d.Spec.Template.Spec.Containers[0]
	var grpcPort int32
	for _, p := range c.Ports {
		if p.Name == "grpc" {
			grpcPort = p.ContainerPort
		}
	}
	podIP := -1
	for i, e := range c.Env {
		switch e.Name {
		case "POD_IP":
			if e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != "status.podIP" {
				t.Errorf("%s: POD_IP must come from the downward API (status.podIP)", d.Name)
			}
			podIP = i
		case "CARDROOM_TABLE_ADVERTISE_ADDR":
			// The kubelet expands $(POD_IP) only from a variable defined
			// earlier in the list.
			if want := "$(POD_IP):" + strconv.Itoa(int(grpcPort)); e.Value != want || podIP < 0 {
				t.Errorf("%s: CARDROOM_TABLE_ADVERTISE_ADDR=%q (after POD_IP: %v), want %q after POD_IP", d.Name, e.Value, podIP >= 0, want)
			}
			return
		}
	}
	t.Errorf("%s: no CARDROOM_TABLE_ADVERTISE_ADDR: other replicas could not forward to this one", d.Name)
}
