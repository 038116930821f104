package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
)

// Object is one decoded manifest.
type Object struct {
	Kind, Name string
	Obj        runtime.Object
}

func newScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := scheme.AddToScheme(s); err != nil {
		return nil, err
	}
	if err := monitoringv1.AddToScheme(s); err != nil {
		return nil, err
	}
	return s, nil
}

// DecodeStrict splits multi-document YAML and decodes each document into
// its registered Go type with strict decoding: unknown or duplicated
// fields, unregistered kinds and type mismatches are errors.
func DecodeStrict(data []byte) ([]Object, []error) {
	s, err := newScheme()
	if err != nil {
		return nil, []error{err}
	}
	decoder := serializer.NewCodecFactory(s, serializer.EnableStrict).UniversalDeserializer()
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var objs []Object
	var errs []error
	for i := 0; ; i++ {
		doc, err := reader.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return objs, append(errs, fmt.Errorf("document %d: %v", i, err))
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		obj, gvk, err := decoder.Decode(doc, nil, nil)
		if err != nil {
			errs = append(errs, fmt.Errorf("document %d: %v", i, err))
			continue
		}
		name := ""
		if m, ok := obj.(interface{ GetName() string }); ok {
			name = m.GetName()
		}
		objs = append(objs, Object{Kind: gvk.Kind, Name: name, Obj: obj})
	}
	return objs, errs
}
