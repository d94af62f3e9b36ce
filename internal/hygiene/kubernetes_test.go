package hygiene_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/restls/restls/internal/restlstest"
	scriptrt "github.com/restls/restls/runtime"
	"github.com/restls/restls/workspace"
)

const kubeDir = "../../deploy/kubernetes"

// kustomization is the part of kustomize's Kustomization the manifests
// use; decoded strictly, so a key kustomize does not know fails here too.
type kustomization struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Labels     []struct {
		Pairs map[string]string `json:"pairs"`
	} `json:"labels"`
	Resources []string `json:"resources"`
	Images    []struct {
		Name    string `json:"name"`
		NewName string `json:"newName"`
		NewTag  string `json:"newTag"`
	} `json:"images"`
}

// kubeObjects are the manifests decoded, by kind.
type kubeObjects struct {
	deployment    *appsv1.Deployment
	service       *corev1.Service
	hpa           *autoscalingv2.HorizontalPodAutoscaler
	pdb           *policyv1.PodDisruptionBudget
	networkPolicy *networkingv1.NetworkPolicy
	configMaps    map[string]*corev1.ConfigMap
	secrets       map[string]*corev1.Secret
}

// decodeKube decodes every document of every file the kustomization
// lists strictly into the Kubernetes API types: an unknown or misplaced
// field, a duplicate key or a wrong type fails, as the API server would
// refuse it (no cluster runs here).
func decodeKube(t *testing.T) kubeObjects {
	t.Helper()
	var k kustomization
	if err := yaml.UnmarshalStrict(readKube(t, "kustomization.yaml"), &k); err != nil {
		t.Fatalf("kustomization.yaml: %v", err)
	}
	if k.APIVersion != "kustomize.config.k8s.io/v1beta1" || k.Kind != "Kustomization" {
		t.Errorf("kustomization.yaml is %s %s", k.APIVersion, k.Kind)
	}
	files, _ := filepath.Glob(filepath.Join(kubeDir, "*.yaml"))
	var listed []string
	for _, f := range files {
		if b := filepath.Base(f); b != "kustomization.yaml" {
			listed = append(listed, b)
		}
	}
	if !slices.Equal(slices.Sorted(slices.Values(k.Resources)), listed) {
		t.Errorf("the kustomization lists %v, the directory holds %v", k.Resources, listed)
	}
	objs := kubeObjects{configMaps: map[string]*corev1.ConfigMap{}, secrets: map[string]*corev1.Secret{}}
	for _, f := range k.Resources {
		for i, doc := range bytes.Split(readKube(t, f), []byte("\n---\n")) {
			var meta struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
			}
			if err := yaml.Unmarshal(doc, &meta); err != nil {
				t.Fatalf("%s document %d: %v", f, i+1, err)
			}
			var obj any
			want := "v1"
			switch meta.Kind {
			case "Deployment":
				objs.deployment, want = &appsv1.Deployment{}, "apps/v1"
				obj = objs.deployment
			case "Service":
				objs.service = &corev1.Service{}
				obj = objs.service
			case "HorizontalPodAutoscaler":
				objs.hpa, want = &autoscalingv2.HorizontalPodAutoscaler{}, "autoscaling/v2"
				obj = objs.hpa
			case "PodDisruptionBudget":
				objs.pdb, want = &policyv1.PodDisruptionBudget{}, "policy/v1"
				obj = objs.pdb
			case "NetworkPolicy":
				objs.networkPolicy, want = &networkingv1.NetworkPolicy{}, "networking.k8s.io/v1"
				obj = objs.networkPolicy
			case "ConfigMap":
				obj = &corev1.ConfigMap{}
			case "Secret":
				obj = &corev1.Secret{}
			default:
				t.Fatalf("%s document %d: kind %q is not one this test knows", f, i+1, meta.Kind)
			}
			if meta.APIVersion != want {
				t.Errorf("%s %s: apiVersion %s, want %s", f, meta.Kind, meta.APIVersion, want)
			}
			if err := yaml.UnmarshalStrict(doc, obj); err != nil {
				t.Errorf("%s document %d (%s): %v", f, i+1, meta.Kind, err)
			}
			switch o := obj.(type) {
			case *corev1.ConfigMap:
				objs.configMaps[o.Name] = o
			case *corev1.Secret:
				objs.secrets[o.Name] = o
			}
		}
	}
	if objs.deployment == nil || objs.service == nil || objs.hpa == nil || objs.pdb == nil || objs.networkPolicy == nil {
		t.Fatalf("a manifest is missing: %+v", objs)
	}
	return objs
}

func readKube(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(kubeDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestKubernetesManifestsDecodeStrictly: every manifest decodes strictly
// into k8s.io/api, and a field the API does not have is caught (the
// check itself is tested).
func TestKubernetesManifestsDecodeStrictly(t *testing.T) {
	t.Parallel()
	decodeKube(t)
	bad := bytes.Replace(readKube(t, "deployment.yaml"), []byte("      terminationGracePeriodSeconds:"), []byte("      terminationGracePeriod:"), 1)
	if err := yaml.UnmarshalStrict(bad, &appsv1.Deployment{}); err == nil {
		t.Error("a misspelt field decoded: the strict decoding checks nothing")
	}
}

// TestKubernetesManifestsAgree: the manifests agree with each other and
// with restls: selectors, ports and probes; the flags are serve's; the
// stop fits in the termination grace period; the memory limit holds
// --max-runs dry runs; the security context is docs/deploy.md's; the
// project file in the ConfigMap has no error and has roles; every Secret
// and ConfigMap named exists.
func TestKubernetesManifestsAgree(t *testing.T) {
	t.Parallel()
	o := decodeKube(t)
	d := o.deployment
	labels := d.Spec.Template.Labels
	matches := func(what string, sel map[string]string) {
		for k, v := range sel {
			if labels[k] != v {
				t.Errorf("%s selects %s=%s, which the pods do not carry (%v)", what, k, v, labels)
			}
		}
		if len(sel) == 0 {
			t.Errorf("%s selects nothing", what)
		}
	}
	matches("the Deployment", d.Spec.Selector.MatchLabels)
	matches("the Service", o.service.Spec.Selector)
	matches("the PodDisruptionBudget", o.pdb.Spec.Selector.MatchLabels)
	matches("the NetworkPolicy", o.networkPolicy.Spec.PodSelector.MatchLabels)
	if ref := o.hpa.Spec.ScaleTargetRef; ref.Kind != "Deployment" || ref.Name != d.Name {
		t.Errorf("the HPA scales %s %s", ref.Kind, ref.Name)
	}

	if len(d.Spec.Template.Spec.Containers) != 1 {
		t.Fatal("one container expected")
	}
	c := d.Spec.Template.Spec.Containers[0]
	args := map[string]string{}
	for _, a := range c.Args[1:] {
		name, value, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		args[name] = value
	}
	if c.Args[0] != "serve" {
		t.Fatalf("args %v do not start with serve", c.Args)
	}
	// Every flag is one of serve's.
	var help bytes.Buffer
	cmd := restlstest.Command(t, "serve", "-h")
	cmd.Stderr, cmd.Stdout = &help, &help
	restlstest.RunWithin(t, cmd, 30*time.Second, help.String)
	for name := range args {
		if !regexp.MustCompile(`(?m)^\s+-` + regexp.QuoteMeta(name) + `\b`).MatchString(help.String()) {
			t.Errorf("--%s is not a flag of restls serve", name)
		}
	}
	// Ports: --http and --metrics-addr are the container's, the probes
	// use the operators' port, the Service forwards both.
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if fmt.Sprint(":", ports["http"]) != args["http"][strings.LastIndex(args["http"], ":"):] ||
		fmt.Sprint(":", ports["ops"]) != args["metrics-addr"][strings.LastIndex(args["metrics-addr"], ":"):] {
		t.Errorf("container ports %v do not match --http %s and --metrics-addr %s", ports, args["http"], args["metrics-addr"])
	}
	for name, p := range map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe, "startup": c.StartupProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Port.String() != "ops" {
			t.Errorf("the %s probe does not ask the operators' port: %+v", name, p)
		}
	}
	if c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.LivenessProbe.HTTPGet.Path != "/healthz" {
		t.Error("readiness must ask /readyz (it fails at once on SIGTERM), liveness /healthz")
	}
	for _, sp := range o.service.Spec.Ports {
		if _, ok := ports[sp.TargetPort.String()]; !ok {
			t.Errorf("the Service forwards to a port the container does not name: %s", sp.TargetPort.String())
		}
	}

	// Stopping: the preStop pause, then --shutdown-grace, within the
	// termination grace period.
	grace, err := time.ParseDuration(args["shutdown-grace"])
	if err != nil {
		t.Fatalf("--shutdown-grace: %v", err)
	}
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep == nil {
		t.Fatal("no preStop sleep: the endpoints would still send traffic while the pod stops")
	}
	stop := time.Duration(c.Lifecycle.PreStop.Sleep.Seconds)*time.Second + grace
	if tg := d.Spec.Template.Spec.TerminationGracePeriodSeconds; tg == nil || time.Duration(*tg)*time.Second <= stop {
		t.Errorf("terminationGracePeriodSeconds %d leaves no time after preStop + --shutdown-grace (%v)", deref(tg), stop)
	}

	// Memory: restls itself and --max-runs runs of --max-memory each.
	maxMem, err := scriptrt.ParseSize(args["max-memory"])
	if err != nil {
		t.Fatal(err)
	}
	var runs int64
	fmt.Sscan(args["max-runs"], &runs)
	need := resource.NewQuantity(128<<20+runs*maxMem, resource.BinarySI)
	if lim := c.Resources.Limits.Memory(); lim.Cmp(*need) < 0 {
		t.Errorf("memory limit %s is below restls (128Mi) + --max-runs %d x --max-memory %s = %s", lim, runs, args["max-memory"], need)
	}

	// The security context docs/deploy.md describes.
	sc, psc := c.SecurityContext, d.Spec.Template.Spec.SecurityContext
	if sc == nil || psc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		t.Errorf("security context %+v / %+v", sc, psc)
	}
	// No volume at /tmp: restls writes nothing there
	// (TestServeHTTPWritesNoTempFiles), and docs/deploy.md says so.
	for _, m := range c.VolumeMounts {
		if m.MountPath == "/tmp" {
			t.Errorf("a volume at /tmp (%s): restls writes nothing there; docs/deploy.md says none is needed", m.Name)
		}
	}

	// What the Deployment names exists.
	for _, v := range d.Spec.Template.Spec.Volumes {
		if v.ConfigMap != nil && o.configMaps[v.ConfigMap.Name] == nil {
			t.Errorf("volume %s names ConfigMap %s, which is not in the manifests", v.Name, v.ConfigMap.Name)
		}
	}
	for _, e := range c.Env {
		if r := e.ValueFrom; r != nil && r.SecretKeyRef != nil {
			s := o.secrets[r.SecretKeyRef.Name]
			if s == nil || s.StringData[r.SecretKeyRef.Key] == "" {
				t.Errorf("env %s names Secret %s key %s, which the manifests do not hold", e.Name, r.SecretKeyRef.Name, r.SecretKeyRef.Key)
			}
		}
	}
	// The project file: no error, roles for --auth oidc.
	proj := o.configMaps["restls-project"]
	if proj == nil {
		t.Fatal("no restls-project ConfigMap")
	}
	p := workspace.ParseProject("restls.yaml", []byte(proj.Data["restls.yaml"]))
	if p.HasErrors() || p.Roles == nil {
		t.Errorf("the project file in the ConfigMap: roles %+v, %v", p.Roles, p.Diagnostics)
	}
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
