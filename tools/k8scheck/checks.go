package main

import (
	"fmt"
	"os"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// Check verifies what strict decoding cannot: references between objects
// resolve, selectors select, and the server and fleet pods carry what the
// deployment relies on (health probes that can speak the server's
// transport, non-root read-only containers, resources, TLS and token files
// that are mounted, the shard command of an Indexed Job). externalSecrets
// names the Secrets the operator creates (never rendered from the
// repository: keys and tokens); a volume may name them without the Secret
// being rendered.
func Check(objs []Object, externalSecrets []string) []error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	names := map[string]bool{}
	for _, n := range externalSecrets {
		names["Secret/"+n] = true
	}
	var podLabels []map[string]string
	for _, o := range objs {
		names[o.Kind+"/"+o.Name] = true
		switch t := o.Obj.(type) {
		case *appsv1.Deployment:
			podLabels = append(podLabels, t.Spec.Template.Labels)
		}
	}
	selects := func(sel *metav1.LabelSelector) bool {
		s, err := metav1.LabelSelectorAsSelector(sel)
		if err != nil || s.Empty() {
			return false
		}
		for _, l := range podLabels {
			if s.Matches(labels.Set(l)) {
				return true
			}
		}
		return false
	}
	errs = append(errs, checkShardFiles(objs)...)
	errs = append(errs, checkClientCertificates(objs)...)
	errs = append(errs, checkPodMonitors(objs, names)...)
	for _, o := range objs {
		where := o.Kind + "/" + o.Name
		switch t := o.Obj.(type) {
		case *appsv1.Deployment:
			if !selects(t.Spec.Selector) {
				fail("%s: selector does not select its own pod template", where)
			}
			for _, c := range t.Spec.Template.Spec.Containers {
				if isServer(c) {
					for name, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe, "startup": c.StartupProbe} {
						checkProbe(where, name, c, p, fail)
					}
				}
				checkContainer(where, c, fail)
			}
			errs = append(errs, checkPod(where, t.Spec.Template.Spec, names)...)
		case *batchv1.Job:
			for _, c := range t.Spec.Template.Spec.Containers {
				checkContainer(where, c, fail)
			}
			errs = append(errs, checkPod(where, t.Spec.Template.Spec, names)...)
			if t.Spec.CompletionMode != nil && *t.Spec.CompletionMode == batchv1.IndexedCompletion {
				if t.Spec.Completions == nil {
					fail("%s: Indexed Job without completions", where)
					break
				}
				want := fmt.Sprintf("--shard=$(JOB_COMPLETION_INDEX)/%d", *t.Spec.Completions)
				found := false
				for _, c := range t.Spec.Template.Spec.Containers {
					for _, a := range append(append([]string{}, c.Command...), c.Args...) {
						found = found || a == want
					}
				}
				if !found {
					fail("%s: no container argument %q (completions = shards)", where, want)
				}
			}
		case *corev1.Service:
			sel := &metav1.LabelSelector{MatchLabels: t.Spec.Selector}
			if !selects(sel) {
				fail("%s: selector %v selects no Deployment's pods", where, t.Spec.Selector)
			}
		case *policyv1.PodDisruptionBudget:
			if !selects(t.Spec.Selector) {
				fail("%s: selector selects no Deployment's pods", where)
			}
		case *autoscalingv2.HorizontalPodAutoscaler:
			ref := t.Spec.ScaleTargetRef
			if !names[ref.Kind+"/"+ref.Name] {
				fail("%s: scale target %s/%s is not in the manifests", where, ref.Kind, ref.Name)
			}
		case *monitoringv1.PodMonitor:
			if !selects(&t.Spec.Selector) {
				fail("%s: selector selects no Deployment's pods", where)
			}
			// Ports, TLS and client certificates: checkPodMonitors.
		case *monitoringv1.PrometheusRule:
			if len(t.Spec.Groups) == 0 {
				fail("%s: no rule groups", where)
			}
		}
	}
	return errs
}

// fileFlags are the server's and the driver's flags that name a file the
// container must find on a mounted volume (a Secret or a ConfigMap).
var fileFlags = []string{"--tls_cert=", "--tls_key=", "--tls_ca=", "--tls_client_ca=", "--admin_token_file=", "--host_profile="}

// flagValue: the value of the first argument starting with prefix, or "".
func flagValue(args []string, prefix string) string {
	for _, a := range args {
		if strings.HasPrefix(a, prefix) {
			return strings.TrimPrefix(a, prefix)
		}
	}
	return ""
}

// checkProbe: the server container's probes (sidecars may probe as they
// like). Plaintext: kubelet's gRPC probe or an
// exec probe running the server's health client. With --tls_cert, kubelet's
// gRPC probe cannot speak TLS (it would fail the handshake and restart
// every pod), so it must be the exec probe, with --tls_ca.
func checkProbe(where, name string, c corev1.Container, p *corev1.Probe, fail func(string, ...any)) {
	tls := flagValue(append(append([]string{}, c.Command...), c.Args...), "--tls_cert=") != ""
	switch {
	case p == nil:
		fail("%s: container %s has no %s probe", where, c.Name, name)
	case p.GRPC != nil && tls:
		fail("%s: container %s serves TLS but its %s probe is kubelet's gRPC probe, which cannot speak TLS (use an exec probe running `edgefleet-health --tls_ca=...`)", where, c.Name, name)
	case p.GRPC != nil:
	case p.Exec != nil && isHealthClient(p.Exec.Command):
		if tls && flagValue(p.Exec.Command, "--tls_ca=") == "" {
			fail("%s: container %s serves TLS but its %s probe runs the health client without --tls_ca", where, c.Name, name)
		}
		checkMountedFiles(where, c, p.Exec.Command, fail)
	default:
		fail("%s: container %s: the %s probe is neither kubelet's gRPC probe nor the health client (edgefleet-health)", where, c.Name, name)
	}
}

// isHealthClient: the command runs the gRPC health client, edgefleet-health
// or `edgefleet-server health`.
func isHealthClient(cmd []string) bool {
	return len(cmd) >= 1 && strings.HasSuffix(cmd[0], "/edgefleet-health") ||
		len(cmd) >= 2 && strings.HasSuffix(cmd[0], "/edgefleet-server") && cmd[1] == "health"
}

// checkMountedFiles: every file flag among args names a path under one of
// the container's volume mounts.
func checkMountedFiles(where string, c corev1.Container, args []string, fail func(string, ...any)) {
	for _, f := range fileFlags {
		path := flagValue(args, f)
		if path == "" {
			continue
		}
		mounted := false
		for _, m := range c.VolumeMounts {
			mounted = mounted || strings.HasPrefix(path, strings.TrimSuffix(m.MountPath, "/")+"/")
		}
		if !mounted {
			fail("%s: container %s: %s%s is on no mounted volume", where, c.Name, f, path)
		}
	}
}

func checkContainer(where string, c corev1.Container, fail func(string, ...any)) {
	checkMountedFiles(where, c, append(append([]string{}, c.Command...), c.Args...), fail)
	sc := c.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot ||
		sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		fail("%s: container %s must run as non-root, read-only, without privilege escalation", where, c.Name)
	}
	if len(c.Resources.Requests) == 0 || len(c.Resources.Limits) == 0 {
		fail("%s: container %s has no resource requests and limits", where, c.Name)
	}
}

// checkPod: every ConfigMap, Secret and PersistentVolumeClaim a volume
// names is among the rendered objects (kustomize's name suffixes applied),
// and every volume mount names a volume of the pod.
func checkPod(where string, spec corev1.PodSpec, names map[string]bool) []error {
	var errs []error
	volumes := map[string]bool{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = true
		ref := ""
		switch {
		case v.ConfigMap != nil:
			ref = "ConfigMap/" + v.ConfigMap.Name
		case v.Secret != nil:
			ref = "Secret/" + v.Secret.SecretName
		case v.PersistentVolumeClaim != nil:
			ref = "PersistentVolumeClaim/" + v.PersistentVolumeClaim.ClaimName
		}
		if ref != "" && !names[ref] {
			errs = append(errs, fmt.Errorf("%s: volume %s refers to %s, which is not in the manifests", where, v.Name, ref))
		}
	}
	for _, c := range append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...) {
		for _, m := range c.VolumeMounts {
			if !volumes[m.Name] {
				errs = append(errs, fmt.Errorf("%s: container %s mounts unknown volume %s", where, c.Name, m.Name))
			}
		}
		if strings.TrimSpace(c.Image) == "" {
			errs = append(errs, fmt.Errorf("%s: container %s has no image", where, c.Name))
		}
	}
	return errs
}

// CheckRulesFile: every PrometheusRule's spec equals the rule file (the
// one source of the rules, deploy/prometheus/edgefleet.rules.yml), decoded
// strictly into the same type.
func CheckRulesFile(objs []Object, path string) []error {
	data, err := os.ReadFile(path)
	if err != nil {
		return []error{err}
	}
	var want monitoringv1.PrometheusRuleSpec
	if err := yaml.UnmarshalStrict(data, &want); err != nil {
		return []error{fmt.Errorf("%s: %v", path, err)}
	}
	var errs []error
	for _, o := range objs {
		if r, ok := o.Obj.(*monitoringv1.PrometheusRule); ok && !apiequality.Semantic.DeepEqual(r.Spec, want) {
			errs = append(errs, fmt.Errorf("PrometheusRule/%s differs from %s (run deploy/k8s/sync_prometheusrule.sh)", o.Name, path))
		}
	}
	return errs
}

// checkShardFiles: a report Job (a container running `report`) names
// exactly the shard files the Indexed Job writes, in its report and its
// wait-for-shards init container.
func checkShardFiles(objs []Object) []error {
	var shards []string
	for _, o := range objs {
		if j, ok := o.Obj.(*batchv1.Job); ok && j.Spec.CompletionMode != nil &&
			*j.Spec.CompletionMode == batchv1.IndexedCompletion && j.Spec.Completions != nil {
			n := int(*j.Spec.Completions)
			for i := 0; i < n; i++ {
				shards = append(shards, fmt.Sprintf("/results/results.shard-%d-of-%d.json", i, n))
			}
		}
	}
	var errs []error
	for _, o := range objs {
		j, ok := o.Obj.(*batchv1.Job)
		if !ok {
			continue
		}
		spec := j.Spec.Template.Spec
		for _, c := range append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...) {
			var files []string
			for _, a := range c.Args {
				if strings.HasPrefix(a, "/results/results.shard-") {
					files = append(files, a)
				}
			}
			if len(files) > 0 && strings.Join(files, " ") != strings.Join(shards, " ") {
				errs = append(errs, fmt.Errorf("Job/%s: container %s reads %v, the Indexed Job writes %v", j.Name, c.Name, files, shards))
			}
		}
	}
	return errs
}
