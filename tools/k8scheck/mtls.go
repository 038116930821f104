package main

import (
	"fmt"
	"path"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// isServer: the container runs edgefleet-server (not its health subcommand).
func isServer(c corev1.Container) bool {
	cmd := append(append([]string{}, c.Command...), c.Args...)
	return len(cmd) >= 1 && path.Base(cmd[0]) == "edgefleet-server" &&
		!(len(cmd) >= 2 && cmd[1] == "health")
}

// isFleetRun: the container runs `edgefleet-loadtest run`, a client of the
// servers.
func isFleetRun(c corev1.Container) bool {
	cmd := append(append([]string{}, c.Command...), c.Args...)
	return len(cmd) >= 2 && path.Base(cmd[0]) == "edgefleet-loadtest" && cmd[1] == "run"
}

func args(c corev1.Container) []string { return append(append([]string{}, c.Command...), c.Args...) }

// hasClientCert: the command presents a client certificate.
func hasClientCert(cmd []string) bool {
	return flagValue(cmd, "--tls_cert=") != "" && flagValue(cmd, "--tls_key=") != ""
}

// checkPodMonitors: every scrape endpoint names a port of the pods the
// PodMonitor selects, its TLS configuration is valid and names rendered
// (or external) Secrets, and where the selected server requires client
// certificates (--tls_client_ca), the scrape is HTTPS with a client
// certificate: a server that demands mutual TLS on gRPC gets it on the
// metrics path too.
func checkPodMonitors(objs []Object, names map[string]bool) []error {
	var errs []error
	fail := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	var pods []corev1.PodTemplateSpec
	for _, o := range objs {
		if d, ok := o.Obj.(*appsv1.Deployment); ok {
			pods = append(pods, d.Spec.Template)
		}
	}
	for _, o := range objs {
		pm, ok := o.Obj.(*monitoringv1.PodMonitor)
		if !ok {
			continue
		}
		where := "PodMonitor/" + pm.Name
		sel, err := metav1.LabelSelectorAsSelector(&pm.Spec.Selector)
		if err != nil {
			fail("%s: selector: %v", where, err)
			continue
		}
		ports := map[string]bool{}
		mutual := false
		for _, p := range pods {
			if sel.Empty() || !sel.Matches(labels.Set(p.Labels)) {
				continue
			}
			for _, c := range p.Spec.Containers {
				for _, cp := range c.Ports {
					ports[cp.Name] = true
				}
				mutual = mutual || isServer(c) && flagValue(args(c), "--tls_client_ca=") != ""
			}
		}
		for i, ep := range pm.Spec.PodMetricsEndpoints {
			if ep.Port == nil || !ports[*ep.Port] {
				fail("%s: endpoint %d scrapes a port the selected pods do not name", where, i)
			}
			tls := ep.TLSConfig
			if tls != nil {
				if err := tls.Validate(); err != nil {
					fail("%s: endpoint %d: tlsConfig: %v", where, i, err)
				}
				for _, s := range []*corev1.SecretKeySelector{tls.CA.Secret, tls.Cert.Secret, tls.KeySecret} {
					if s != nil && !names["Secret/"+s.Name] {
						fail("%s: endpoint %d: tlsConfig refers to Secret/%s, which is not in the manifests", where, i, s.Name)
					}
				}
			}
			https := ep.Scheme != nil && strings.EqualFold(string(*ep.Scheme), "https")
			if mutual && (!https || tls == nil || tls.KeySecret == nil || tls.Cert == (monitoringv1.SecretOrConfigMap{})) {
				fail("%s: endpoint %d: the server requires client certificates (--tls_client_ca) but the scrape is not HTTPS with a client certificate (scheme https, tlsConfig cert and keySecret)", where, i)
			}
		}
	}
	return errs
}

// checkClientCertificates: when a server requires client certificates
// (--tls_client_ca), it serves TLS, each of its exec health probes and
// every fleet run (`edgefleet-loadtest run` in a Job) presents a
// certificate, or the handshake fails: probes would restart every pod and
// shards would fail.
func checkClientCertificates(objs []Object) []error {
	var errs []error
	fail := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	mutual := false
	for _, o := range objs {
		d, ok := o.Obj.(*appsv1.Deployment)
		if !ok {
			continue
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			if !isServer(c) || flagValue(args(c), "--tls_client_ca=") == "" {
				continue
			}
			mutual = true
			if flagValue(args(c), "--tls_cert=") == "" {
				fail("Deployment/%s: container %s has --tls_client_ca without --tls_cert (client certificates need TLS)", d.Name, c.Name)
			}
			for name, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe, "startup": c.StartupProbe} {
				if p != nil && p.Exec != nil && isHealthClient(p.Exec.Command) && !hasClientCert(p.Exec.Command) {
					fail("Deployment/%s: container %s requires client certificates but its %s probe presents none (--tls_cert, --tls_key)", d.Name, c.Name, name)
				}
			}
		}
	}
	if !mutual {
		return errs
	}
	for _, o := range objs {
		j, ok := o.Obj.(*batchv1.Job)
		if !ok {
			continue
		}
		for _, c := range j.Spec.Template.Spec.Containers {
			if isFleetRun(c) && !hasClientCert(args(c)) {
				fail("Job/%s: container %s runs a fleet against servers that require client certificates but presents none (--tls_cert, --tls_key)", j.Name, c.Name)
			}
		}
	}
	return errs
}
