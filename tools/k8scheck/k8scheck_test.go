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
	got := Check(objs)
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
