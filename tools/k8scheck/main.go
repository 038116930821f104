// k8scheck renders kustomize directories and decodes every object strictly
// into the real Kubernetes API types (k8s.io/api through client-go's scheme,
// plus the Prometheus Operator's monitoring.coreos.com/v1 types), so an
// unknown field, a misspelled kind or a value of the wrong type fails.
// It then checks the cross-object facts the manifests rely on (see checks.go).
//
// Usage: k8scheck [-out DIR] [-rules FILE] [-external-secrets A,B] KUSTOMIZATION_DIR...
// Exit 0 when every directory renders and decodes and every check holds;
// 1 with one line per problem otherwise.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	out := flag.String("out", "", "write each rendered directory as DIR/<name>.yaml")
	rules := flag.String("rules", "", "Prometheus rule file every PrometheusRule must equal")
	external := flag.String("external-secrets", "", "comma-separated Secrets the operator creates (volumes may name them unrendered)")
	flag.Parse()
	var externalSecrets []string
	if *external != "" {
		externalSecrets = strings.Split(*external, ",")
	}
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: k8scheck [-out DIR] [-rules FILE] [-external-secrets A,B] KUSTOMIZATION_DIR...")
		os.Exit(2)
	}
	failed := false
	for _, dir := range flag.Args() {
		yaml, err := Render(dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: kustomize: %v\n", dir, err)
			failed = true
			continue
		}
		if *out != "" {
			name := strings.ReplaceAll(filepath.Clean(dir), string(filepath.Separator), "_") + ".yaml"
			if err := os.MkdirAll(*out, 0o755); err == nil {
				err = os.WriteFile(filepath.Join(*out, name), yaml, 0o644)
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", dir, err)
				failed = true
			}
		}
		objs, errs := DecodeStrict(yaml)
		errs = append(errs, Check(objs, externalSecrets)...)
		if *rules != "" {
			errs = append(errs, CheckRulesFile(objs, *rules)...)
		}
		for _, e := range errs {
			fmt.Fprintf(os.Stderr, "%s: %v\n", dir, e)
		}
		if len(errs) > 0 {
			failed = true
			continue
		}
		fmt.Printf("%s: %d objects rendered and strictly decoded, checks pass\n", dir, len(objs))
	}
	if failed {
		os.Exit(1)
	}
}
