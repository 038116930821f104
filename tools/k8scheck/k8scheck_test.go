package main

import (
	"strings"
	"testing"
)

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: s
spec:
  %s
  selector:
    matchLabels: {app: s}
  template:
    metadata:
      labels: {app: s}
    spec:
      containers:
        - name: c
          image: i
`

func decodeErr(t *testing.T, doc string) string {
	t.Helper()
	_, errs := DecodeStrict([]byte(doc))
	if len(errs) == 0 {
		return ""
	}
	return errs[0].Error()
}

func TestStrictDecodingRejectsWhatLenientDecodingKeeps(t *testing.T) {
	if e := decodeErr(t, strings.Replace(deployment, "%s", "replicas: 2", 1)); e != "" {
		t.Fatalf("a valid Deployment failed: %s", e)
	}
	cases := map[string]string{
		"misspelled field": strings.Replace(deployment, "%s", "replica: 2", 1),
		"wrong type":       strings.Replace(deployment, "%s", `replicas: "two"`, 1),
		"duplicate field":  strings.Replace(deployment, "%s", "replicas: 2\n  replicas: 3", 1),
		"unknown kind":     "apiVersion: apps/v1\nkind: Deploymnet\nmetadata: {name: s}\n",
		"unknown CRD field": "apiVersion: monitoring.coreos.com/v1\nkind: PodMonitor\nmetadata: {name: p}\n" +
			"spec:\n  selector: {}\n  podMetricEndpoints: []\n",
	}
	for name, doc := range cases {
		if decodeErr(t, doc) == "" {
			t.Errorf("%s: decoded without error", name)
		}
	}
}

func TestChecksCatchBrokenReferences(t *testing.T) {
	const job = `apiVersion: batch/v1
kind: Job
metadata: {name: fleet}
spec:
  completionMode: Indexed
  completions: 4
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: shard
          image: i
          args: [run, "--shard=$(JOB_COMPLETION_INDEX)/3"]
          resources: {requests: {cpu: "1"}, limits: {cpu: "1"}}
          securityContext: {runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false}
          volumeMounts: [{name: results, mountPath: /results}]
      volumes:
        - name: results
          persistentVolumeClaim: {claimName: missing}
`
	objs, errs := DecodeStrict([]byte(job))
	if len(errs) != 0 {
		t.Fatalf("decode: %v", errs)
	}
	got := Check(objs, nil)
	want := []string{"--shard=$(JOB_COMPLETION_INDEX)/4", "PersistentVolumeClaim/missing"}
	for _, w := range want {
		found := false
		for _, e := range got {
			found = found || strings.Contains(e.Error(), w)
		}
		if !found {
			t.Errorf("no error mentioning %q in %v", w, got)
		}
	}
}

// serverPod: a Deployment whose one container runs edgefleet-server, up to
// the container's arguments.
const serverPod = `apiVersion: apps/v1
kind: Deployment
metadata: {name: s}
spec:
  selector:
    matchLabels: {app: s}
  template:
    metadata:
      labels: {app: s}
    spec:
      containers:
        - name: c
          image: i
          command: [/opt/edgefleet/bin/edgefleet-server]
`

// joinErrors: the errors' messages, one a line.
func joinErrors(errs []error) string {
	var s []string
	for _, e := range errs {
		s = append(s, e.Error())
	}
	return strings.Join(s, "\n")
}

// A TLS server pod: kubelet's gRPC probe is refused (it cannot speak TLS),
// an exec health probe without --tls_ca is refused, a TLS file on no
// mounted volume is refused, and a Secret not rendered is accepted only
// when named external.
func TestChecksCatchProbesAndFilesThatDoNotFitTls(t *testing.T) {
	const server = serverPod + `          args: [--tls_cert=/tls/tls.crt, --tls_key=/elsewhere/tls.key]
          startupProbe: {grpc: {port: 8001}}
          readinessProbe:
            exec: {command: [/opt/edgefleet/bin/edgefleet-server, health, --address=127.0.0.1:8001]}
          livenessProbe:
            exec: {command: [/opt/edgefleet/bin/edgefleet-health, --tls_ca=/tls/ca.crt]}
          resources: {requests: {cpu: "1"}, limits: {cpu: "1"}}
          securityContext: {runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false}
          volumeMounts: [{name: tls, mountPath: /tls}]
      volumes:
        - name: tls
          secret: {secretName: server-tls}
`
	objs, errs := DecodeStrict([]byte(server))
	if len(errs) != 0 {
		t.Fatalf("decode: %v", errs)
	}
	got := joinErrors(Check(objs, nil))
	for _, w := range []string{
		"startup probe is kubelet's gRPC probe, which cannot speak TLS",
		"readiness probe runs the health client without --tls_ca",
		"--tls_key=/elsewhere/tls.key is on no mounted volume",
		"Secret/server-tls, which is not in the manifests",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("no error mentioning %q in:\n%s", w, got)
		}
	}
	if strings.Contains(got, "liveness") {
		t.Errorf("the liveness probe (health client with --tls_ca on a mounted path) was refused:\n%s", got)
	}
	if got := joinErrors(Check(objs, []string{"server-tls"})); strings.Contains(got, "server-tls") {
		t.Errorf("an external Secret was refused:\n%s", got)
	}
}

// Mutual TLS: a server with --tls_client_ca whose probe presents no client
// certificate, a fleet shard without one, a PodMonitor scraping plaintext
// or a port the pods do not have, and a tlsConfig with a certificate but
// no key are each refused; the same objects with certificates everywhere
// pass.
func TestChecksCatchClientsWithoutCertificatesUnderMutualTls(t *testing.T) {
	const objs = serverPod + `          args: [--tls_cert=/tls/tls.crt, --tls_key=/tls/tls.key, --tls_client_ca=/tls/ca.crt]
          ports: [{name: metrics-tls, containerPort: 8443}]
          startupProbe: &probe
            exec: {command: [/opt/edgefleet/bin/edgefleet-health, --tls_ca=/tls/ca.crt PROBE_CERT]}
          readinessProbe: *probe
          livenessProbe: *probe
          resources: {requests: {cpu: "1"}, limits: {cpu: "1"}}
          securityContext: {runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false}
          volumeMounts: [{name: tls, mountPath: /tls}]
      volumes:
        - name: tls
          secret: {secretName: server-tls}
---
apiVersion: batch/v1
kind: Job
metadata: {name: fleet}
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: shard
          image: i
          command: [/opt/edgefleet/bin/edgefleet-loadtest]
          args: [run, --tls_ca=/tls/ca.crt SHARD_CERT]
          resources: {requests: {cpu: "1"}, limits: {cpu: "1"}}
          securityContext: {runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false}
          volumeMounts: [{name: tls, mountPath: /tls}]
      volumes:
        - name: tls
          secret: {secretName: server-tls}
---
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {name: p}
spec:
  selector:
    matchLabels: {app: s}
  podMetricsEndpoints:
    - port: PORT
      SCRAPE
`
	const certs = `, --tls_cert=/tls/tls.crt, --tls_key=/tls/tls.key`
	const https = `scheme: https
      tlsConfig:
        ca: {secret: {name: scrape-tls, key: ca.crt}}
        cert: {secret: {name: scrape-tls, key: tls.crt}}
        keySecret: {name: scrape-tls, key: tls.key}`
	check := func(probeCert, shardCert, port, scrape string) string {
		doc := strings.NewReplacer("PROBE_CERT", probeCert, "SHARD_CERT", shardCert, "PORT", port, "SCRAPE", scrape).Replace(objs)
		// The placeholders sit inside flow sequences: "a PROBE_CERT" becomes "a, --tls_cert=..., ...".
		doc = strings.ReplaceAll(doc, " , --", ", --")
		decoded, errs := DecodeStrict([]byte(doc))
		if len(errs) != 0 {
			t.Fatalf("decode: %v\n%s", errs, doc)
		}
		return joinErrors(Check(decoded, []string{"server-tls", "scrape-tls"}))
	}
	if got := check(certs, certs, "metrics-tls", https); got != "" {
		t.Fatalf("certificates everywhere were refused:\n%s", got)
	}
	cases := map[string]struct{ probe, shard, port, scrape, want string }{
		"probe":       {"", certs, "metrics-tls", https, "startup probe presents none"},
		"shard":       {certs, "", "metrics-tls", https, "Job/fleet: container shard runs a fleet against servers that require client certificates"},
		"plaintext":   {certs, certs, "metrics-tls", "scheme: http", "the scrape is not HTTPS with a client certificate"},
		"port":        {certs, certs, "metrics", https, "scrapes a port the selected pods do not name"},
		"no key":      {certs, certs, "metrics-tls", strings.Replace(https, "keySecret: {name: scrape-tls, key: tls.key}", "serverName: s", 1), "tlsConfig"},
		"unknown ref": {certs, certs, "metrics-tls", strings.ReplaceAll(https, "scrape-tls", "other-tls"), "Secret/other-tls, which is not in the manifests"},
	}
	for name, c := range cases {
		if got := check(c.probe, c.shard, c.port, c.scrape); !strings.Contains(got, c.want) {
			t.Errorf("%s: no error mentioning %q in:\n%s", name, c.want, got)
		}
	}
}
