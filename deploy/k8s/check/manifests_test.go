package check

import (
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/cardroom/cardroom/platform/config"
)

// parts are the arguments `cardroom` accepts for one part of the suite
// (cmd/cardroom run.go); each Deployment runs exactly one of them.
var parts = []string{"table", "tournament", "wallet", "seating", "gateway"}

// stateless are the parts an autoscaler may scale: every part but the
// table, whose replicas hold tables (scaling moves them).
var stateless = []string{"gateway", "wallet", "seating", "tournament"}

// builds are the kustomizations kustomize builds: the base and every overlay.
var builds = []string{"../base", "../overlays/dev", "../overlays/prod"}

// manifests is one kustomize build decoded strictly into Kubernetes types.
type manifests struct {
	dir          string
	deployments  map[string]*appsv1.Deployment
	services     map[string]*corev1.Service
	configMaps   map[string]*corev1.ConfigMap
	disruptions  map[string]*policyv1.PodDisruptionBudget
	autoscalers  map[string]*autoscalingv2.HorizontalPodAutoscaler
	netpols      map[string]*networkingv1.NetworkPolicy
	kinds        map[string]int
	namespaceSet map[string]bool
}

// build runs kustomize (the library kubectl -k uses) on dir and decodes
// every resource strictly: a misspelt field fails here instead of being
// dropped by the API server. A Secret fails too: secrets are created by the
// operator or an external secrets controller, never committed.
func build(t *testing.T, dir string) manifests {
	t.Helper()
	rm, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	m := manifests{dir: dir, deployments: map[string]*appsv1.Deployment{}, services: map[string]*corev1.Service{},
		configMaps: map[string]*corev1.ConfigMap{}, disruptions: map[string]*policyv1.PodDisruptionBudget{},
		autoscalers: map[string]*autoscalingv2.HorizontalPodAutoscaler{}, netpols: map[string]*networkingv1.NetworkPolicy{},
		kinds: map[string]int{}, namespaceSet: map[string]bool{}}
	for _, r := range rm.Resources() {
		doc, err := r.AsYAML()
		if err != nil {
			t.Fatalf("%s: %s: %v", dir, r.CurId(), err)
		}
		kind, name := r.GetKind(), r.GetName()
		m.kinds[kind]++
		m.namespaceSet[r.GetNamespace()] = true
		var obj any
		switch kind {
		case "Deployment":
			d := &appsv1.Deployment{}
			obj, m.deployments[name] = d, d
		case "Service":
			s := &corev1.Service{}
			obj, m.services[name] = s, s
		case "ConfigMap":
			c := &corev1.ConfigMap{}
			obj, m.configMaps[name] = c, c
		case "PodDisruptionBudget":
			p := &policyv1.PodDisruptionBudget{}
			obj, m.disruptions[name] = p, p
		case "HorizontalPodAutoscaler":
			h := &autoscalingv2.HorizontalPodAutoscaler{}
			obj, m.autoscalers[name] = h, h
		case "NetworkPolicy":
			n := &networkingv1.NetworkPolicy{}
			obj, m.netpols[name] = n, n
		case "Secret":
			t.Fatalf("%s: Secret %s is in the repository; secrets are created outside it", dir, name)
		default:
			t.Fatalf("%s: unexpected kind %s (%s)", dir, kind, name)
		}
		if err := yaml.UnmarshalStrict(doc, obj); err != nil {
			t.Fatalf("%s: %s %s: %v", dir, kind, name, err)
		}
	}
	return m
}

// each runs check on every build, as a parallel subtest.
func each(t *testing.T, check func(t *testing.T, m manifests)) {
	t.Helper()
	for _, dir := range builds {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			check(t, build(t, dir))
		})
	}
}

// cardroom returns the build's cardroom Deployments by part.
func (m manifests) cardroom() map[string]*appsv1.Deployment {
	out := map[string]*appsv1.Deployment{}
	for _, d := range m.deployments {
		if strings.HasPrefix(d.Name, "cardroom-") {
			out[strings.TrimPrefix(d.Name, "cardroom-")] = d
		}
	}
	return out
}

// TestBuilds: every kustomization builds and decodes strictly; the base
// and the overlays hold the same cardroom parts; the overlays put
// everything in one namespace; only the dev overlay adds the collector
// and Jaeger.
func TestBuilds(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, m manifests) {
		got := slices.Sorted(func(yield func(string) bool) {
			for p := range m.cardroom() {
				if !yield(p) {
					return
				}
			}
		})
		if want := slices.Sorted(slices.Values(parts)); !slices.Equal(got, want) {
			t.Errorf("cardroom parts %v, want %v", got, want)
		}
		if m.dir != "../base" && len(m.namespaceSet) != 1 {
			t.Errorf("resources in namespaces %v, want one", m.namespaceSet)
		}
		_, collector := m.deployments["otel-collector"]
		_, jaeger := m.deployments["jaeger"]
		if dev := m.dir == "../overlays/dev"; collector != dev || jaeger != dev {
			t.Errorf("collector %v, jaeger %v: want them in the dev overlay only", collector, jaeger)
		}
		t.Logf("%s: %v", m.dir, m.kinds)
	})
}

// TestDeploymentsRunOnePartEach: one Deployment per part, all from the
// same image, each with probes, resource requests and a memory limit, and
// a non-root, read-only container without capabilities; every part with a
// database runs `cardroom migrate <part>` in an init container first.
func TestDeploymentsRunOnePartEach(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, m manifests) {
		image := ""
		for part, d := range m.cardroom() {
			spec := d.Spec.Template.Spec
			if len(spec.Containers) != 1 {
				t.Errorf("%s: %d containers, want 1", d.Name, len(spec.Containers))
				continue
			}
			c := spec.Containers[0]
			if image == "" {
				image = c.Image
			}
			if c.Image != image || !strings.Contains(c.Image, "cardroom") {
				t.Errorf("%s: image %q, want the one cardroom image (%s)", d.Name, c.Image, image)
			}
			if !slices.Equal(c.Args, []string{part}) {
				t.Errorf("%s: args %v, want [%s]", d.Name, c.Args, part)
			}
			if c.ReadinessProbe == nil || c.LivenessProbe == nil {
				t.Errorf("%s: readiness and liveness probes are required", d.Name)
			}
			checkContainer(t, d.Name+"/"+c.Name, c)
			for k, v := range d.Spec.Selector.MatchLabels {
				if d.Spec.Template.Labels[k] != v {
					t.Errorf("%s: selector %s=%s does not match its pod labels", d.Name, k, v)
				}
			}
			if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
				t.Errorf("%s: mounts a service account token it never uses", d.Name)
			}
			if part == "gateway" {
				if len(spec.InitContainers) != 0 {
					t.Errorf("%s: the gateway has no database to migrate", d.Name)
				}
				continue
			}
			if len(spec.InitContainers) != 1 || !slices.Equal(spec.InitContainers[0].Args, []string{"migrate", part}) ||
				spec.InitContainers[0].Image != c.Image {
				t.Errorf("%s: want one init container running `cardroom migrate %s` from the same image, got %+v", d.Name, part, spec.InitContainers)
				continue
			}
			checkContainer(t, d.Name+"/"+spec.InitContainers[0].Name, spec.InitContainers[0])
			if !slices.Equal(envSources(spec.InitContainers[0]), envSources(c)) {
				t.Errorf("%s: the migration reads %v, the part %v", d.Name, envSources(spec.InitContainers[0]), envSources(c))
			}
			if part == "table" {
				checkTableReplicas(t, m, d)
			}
		}
	})
}

func checkContainer(t *testing.T, name string, c corev1.Container) {
	t.Helper()
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("%s: cpu and memory requests and a memory limit are required", name)
	}
	sc := c.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
		t.Errorf("%s: must run as non-root, read-only, without privilege escalation or capabilities", name)
	}
}

func envSources(c corev1.Container) []string {
	var out []string
	for _, e := range c.EnvFrom {
		switch {
		case e.ConfigMapRef != nil:
			out = append(out, "configmap/"+e.ConfigMapRef.Name)
		case e.SecretRef != nil:
			out = append(out, "secret/"+e.SecretRef.Name)
		}
	}
	return out
}

// secretVariables are the settings that only cardroom-secrets may hold.
var secretVariables = []string{"REDIS_URL", "DATABASE_URL", "CARDROOM_JWT_KEY", "CARDROOM_TABLE_SEAL_KEY"}

// environment is what a part's container reads: the ConfigMap, its own
// env, and, standing in for cardroom-secrets, placeholder values of the
// secret variables.
func (m manifests) environment(t *testing.T, c corev1.Container) map[string]string {
	t.Helper()
	env := map[string]string{
		"REDIS_URL":        "redis://redis:6379/0",
		"DATABASE_URL":     "postgres://cardroom@postgres:5432/cardroom",
		"CARDROOM_JWT_KEY": strings.Repeat("k", 32),
	}
	for _, from := range c.EnvFrom {
		if from.ConfigMapRef == nil {
			continue
		}
		cm, ok := m.configMaps[from.ConfigMapRef.Name]
		if !ok {
			t.Fatalf("%s reads ConfigMap %s, which the build lacks", c.Name, from.ConfigMapRef.Name)
		}
		for k, v := range cm.Data {
			env[k] = v
		}
	}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			env[e.Name] = e.Value
		}
	}
	return env
}

// TestPortsAndProbesAgreeWithTheBinary: each part's environment (the
// ConfigMap, its env and the secrets' variables) loads with the binary's
// own configuration code (platform/config), and the addresses it listens
// on are the ports the container declares, the probes check and the
// Services target: gRPC (services), HTTP (gateway) and /metrics (all).
func TestPortsAndProbesAgreeWithTheBinary(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, m manifests) {
		for part, d := range m.cardroom() {
			c := d.Spec.Template.Spec.Containers[0]
			cfg, err := config.LoadFrom(m.environment(t, c))
			if err != nil {
				t.Errorf("%s: the binary refuses its environment: %v", d.Name, err)
				continue
			}
			ports := map[string]int32{}
			for _, p := range c.Ports {
				ports[p.Name] = p.ContainerPort
			}
			listens := map[string]string{"metrics": cfg.MetricsAddr}
			if part == "gateway" {
				listens["http"] = cfg.HTTPAddr
			} else {
				listens["grpc"] = cfg.GRPCAddr
			}
			for name, addr := range listens {
				_, port, err := net.SplitHostPort(addr)
				if err != nil {
					t.Errorf("%s: %s address %q: %v", d.Name, name, addr, err)
					continue
				}
				if strconv.Itoa(int(ports[name])) != port {
					t.Errorf("%s: listens for %s on %s, the container declares port %s=%d", d.Name, name, addr, name, ports[name])
				}
				if host, _, _ := net.SplitHostPort(addr); host != "0.0.0.0" && host != "" {
					t.Errorf("%s: %s listens on %s, which other pods cannot reach", d.Name, name, addr)
				}
			}
			if len(ports) != len(listens) {
				t.Errorf("%s: declares ports %v, listens on %v", d.Name, ports, listens)
			}
			for _, probe := range []*corev1.Probe{c.ReadinessProbe, c.LivenessProbe} {
				checkProbe(t, d.Name, probe, ports)
			}
			if v := d.Spec.Template.Annotations["prometheus.io/port"]; v != strconv.Itoa(int(ports["metrics"])) {
				t.Errorf("%s: scraped on port %q, serves /metrics on %d", d.Name, v, ports["metrics"])
			}
		}
		for name, s := range m.services {
			d := m.selected(s.Spec.Selector)
			if len(d) != 1 {
				t.Errorf("service %s selects %d deployments, want 1", name, len(d))
				continue
			}
			c := d[0].Spec.Template.Spec.Containers[0]
			for _, p := range s.Spec.Ports {
				if !slices.ContainsFunc(c.Ports, func(cp corev1.ContainerPort) bool { return cp.Name == p.TargetPort.String() }) {
					t.Errorf("service %s targets port %q that %s does not name", name, p.TargetPort.String(), d[0].Name)
				}
			}
		}
	})
}

// checkProbe: a probe checks a port the container declares; the gRPC
// parts' probes ask gRPC health, the gateway's readiness /healthz.
func checkProbe(t *testing.T, name string, p *corev1.Probe, ports map[string]int32) {
	t.Helper()
	if p == nil {
		return
	}
	var port intstr.IntOrString
	switch {
	case p.GRPC != nil:
		port = intstr.FromInt32(p.GRPC.Port)
		if p.GRPC.Port != ports["grpc"] {
			t.Errorf("%s: gRPC probe on %d, gRPC served on %d", name, p.GRPC.Port, ports["grpc"])
		}
	case p.HTTPGet != nil:
		port = p.HTTPGet.Port
		if p.HTTPGet.Path != "/healthz" || port.String() != "http" {
			t.Errorf("%s: HTTP probe of %s on %s, want /healthz on the http port", name, p.HTTPGet.Path, port.String())
		}
	case p.TCPSocket != nil:
		port = p.TCPSocket.Port
	default:
		t.Errorf("%s: a probe with no check", name)
		return
	}
	if port.Type == intstr.String {
		if _, ok := ports[port.StrVal]; !ok {
			t.Errorf("%s: probe on port %q, which the container does not name", name, port.StrVal)
		}
	}
}

// selected returns the Deployments whose pods sel selects.
func (m manifests) selected(sel map[string]string) []*appsv1.Deployment {
	var out []*appsv1.Deployment
	if len(sel) == 0 {
		return nil
	}
	for _, d := range m.deployments {
		if labels.SelectorFromSet(sel).Matches(labels.Set(d.Spec.Template.Labels)) {
			out = append(out, d)
		}
	}
	return out
}

// TestConfigPointsAtServices: every CARDROOM_*_ADDR in the ConfigMap names
// a Service of the build and its port; secrets stay in cardroom-secrets,
// which every part reads.
func TestConfigPointsAtServices(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, m manifests) {
		cm, ok := m.configMaps["cardroom-config"]
		if !ok {
			t.Fatal("no cardroom-config ConfigMap")
		}
		addrs := 0
		for k, v := range cm.Data {
			if !strings.HasSuffix(k, "_ADDR") || k == "CARDROOM_METRICS_ADDR" {
				continue
			}
			addrs++
			host, portText, _ := strings.Cut(v, ":")
			port, err := strconv.ParseInt(portText, 10, 32)
			if err != nil {
				t.Errorf("%s=%s: bad port: %v", k, v, err)
				continue
			}
			s, ok := m.services[host]
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
		for _, name := range secretVariables {
			if _, ok := cm.Data[name]; ok {
				t.Errorf("cardroom-config holds %s, a secret", name)
			}
		}
		for _, d := range m.cardroom() {
			c := d.Spec.Template.Spec.Containers[0]
			if src := envSources(c); !slices.Equal(src, []string{"configmap/cardroom-config", "secret/cardroom-secrets"}) {
				t.Errorf("%s: must read cardroom-config and cardroom-secrets (got %v)", d.Name, src)
			}
			for _, e := range c.Env {
				if slices.Contains(secretVariables, e.Name) {
					t.Errorf("%s: sets %s in its manifest, a secret", d.Name, e.Name)
				}
			}
		}
	})
}

// TestDisruptionBudgets: a drain takes at most one pod of each part at a
// time, and never the last one of a part that runs several.
func TestDisruptionBudgets(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, m manifests) {
		for part, d := range m.cardroom() {
			var budgets []string
			for name, pdb := range m.disruptions {
				sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if sel.Matches(labels.Set(d.Spec.Template.Labels)) {
					budgets = append(budgets, name)
					if pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() != 1 || pdb.Spec.MinAvailable != nil {
						t.Errorf("%s: want maxUnavailable 1", name)
					}
				}
			}
			if len(budgets) != 1 {
				t.Errorf("%s: %d disruption budgets select its pods, want 1", part, len(budgets))
			}
		}
	})
}

// TestAutoscalers: the stateless parts scale on CPU between bounds; the
// table part is not autoscaled; a scaled Deployment leaves its replica
// count to the autoscaler; the others run at least two replicas outside
// the dev overlay.
func TestAutoscalers(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, m manifests) {
		scaled := map[string]bool{}
		for name, h := range m.autoscalers {
			ref := h.Spec.ScaleTargetRef
			d, ok := m.deployments[ref.Name]
			if ref.Kind != "Deployment" || !ok {
				t.Errorf("%s scales %s %s, which the build lacks", name, ref.Kind, ref.Name)
				continue
			}
			part := strings.TrimPrefix(d.Name, "cardroom-")
			if !slices.Contains(stateless, part) {
				t.Errorf("%s scales %s, which is not stateless", name, d.Name)
			}
			scaled[part] = true
			if h.Spec.MinReplicas == nil || *h.Spec.MinReplicas < 1 || *h.Spec.MinReplicas > h.Spec.MaxReplicas {
				t.Errorf("%s: replicas %v..%d", name, h.Spec.MinReplicas, h.Spec.MaxReplicas)
			}
			if m.dir != "../overlays/dev" && *h.Spec.MinReplicas < 2 {
				t.Errorf("%s: at least two replicas, so a pod can go while the other serves", name)
			}
			if m.dir == "../overlays/prod" && (part == "wallet" || part == "gateway") && *h.Spec.MinReplicas < 3 {
				t.Errorf("%s: prod keeps at least three %s pods", name, part)
			}
			if len(h.Spec.Metrics) == 0 {
				t.Errorf("%s: scales on nothing", name)
			}
			if d.Spec.Replicas != nil {
				t.Errorf("%s sets replicas; the autoscaler %s owns them", d.Name, name)
			}
		}
		for _, part := range stateless {
			if !scaled[part] {
				t.Errorf("no autoscaler for %s", part)
			}
		}
		if m.autoscalers["cardroom-table"] != nil {
			t.Error("the table part is autoscaled")
		}
	})
}

// TestNetworkPolicies evaluates the policies the way the cluster does
// (ingress is allowed when some policy selecting the pod allows it, denied
// when a policy selects the pod and none does): from outside the cluster
// only the gateway's HTTP port is reachable; the wallet only from the
// gateway, table and tournament; the other services from cardroom pods
// only; /metrics from the monitoring namespace only.
func TestNetworkPolicies(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, m manifests) {
		type peer struct {
			pod       map[string]string // nil: outside the cluster
			namespace string
		}
		pod := func(part string) peer {
			return peer{pod: map[string]string{"app.kubernetes.io/name": "cardroom", "app.kubernetes.io/component": part}, namespace: "cardroom"}
		}
		outside := peer{}
		monitoring := peer{pod: map[string]string{"app.kubernetes.io/name": "prometheus"}, namespace: "monitoring"}
		allowed := func(to *appsv1.Deployment, from peer, port string) bool {
			selected := false
			for _, np := range m.netpols {
				sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
				if err != nil {
					t.Fatal(err)
				}
				if !sel.Matches(labels.Set(to.Spec.Template.Labels)) {
					continue
				}
				selected = true
				for _, rule := range np.Spec.Ingress {
					portOK := len(rule.Ports) == 0
					for _, p := range rule.Ports {
						portOK = portOK || p.Port == nil || p.Port.String() == port
					}
					fromOK := len(rule.From) == 0
					for _, f := range rule.From {
						switch {
						case f.IPBlock != nil:
							fromOK = fromOK || from.pod == nil
						case from.pod == nil:
						case f.NamespaceSelector != nil:
							ns, _ := metav1.LabelSelectorAsSelector(f.NamespaceSelector)
							nsOK := ns.Matches(labels.Set{"kubernetes.io/metadata.name": from.namespace})
							podOK := f.PodSelector == nil
							if f.PodSelector != nil {
								ps, _ := metav1.LabelSelectorAsSelector(f.PodSelector)
								podOK = ps.Matches(labels.Set(from.pod))
							}
							fromOK = fromOK || nsOK && podOK
						case f.PodSelector != nil:
							ps, _ := metav1.LabelSelectorAsSelector(f.PodSelector)
							fromOK = fromOK || from.namespace == "cardroom" && ps.Matches(labels.Set(from.pod))
						}
					}
					if portOK && fromOK {
						return true
					}
				}
			}
			return !selected
		}
		want := map[string]map[string][]string{ // part → port → who may reach it
			"gateway":    {"http": {"outside", "monitoring", "gateway", "table", "tournament", "wallet", "seating"}, "metrics": {"monitoring"}},
			"wallet":     {"grpc": {"gateway", "table", "tournament"}, "metrics": {"monitoring"}},
			"table":      {"grpc": {"gateway", "table", "tournament", "wallet", "seating"}, "metrics": {"monitoring"}},
			"tournament": {"grpc": {"gateway", "table", "tournament", "wallet", "seating"}, "metrics": {"monitoring"}},
			"seating":    {"grpc": {"gateway", "table", "tournament", "wallet", "seating"}, "metrics": {"monitoring"}},
		}
		peers := map[string]peer{"outside": outside, "monitoring": monitoring}
		for _, p := range parts {
			peers[p] = pod(p)
		}
		for part, d := range m.cardroom() {
			for port, who := range want[part] {
				for name, from := range peers {
					if got := allowed(d, from, port); got != slices.Contains(who, name) {
						t.Errorf("%s port %s from %s: allowed %v, want %v", part, port, name, got, !got)
					}
				}
			}
		}
	})
}

// checkTableReplicas: the table part runs several replicas (one in the
// dev overlay), each advertising its pod address and gRPC port with the
// leases of the tables it deals, so that the others forward calls to it;
// a rolling update keeps every table served.
func checkTableReplicas(t *testing.T, m manifests, d *appsv1.Deployment) {
	t.Helper()
	if m.dir != "../overlays/dev" && (d.Spec.Replicas == nil || *d.Spec.Replicas < 2) {
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
