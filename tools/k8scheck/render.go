package main

import (
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Render runs kustomize (the library behind `kubectl kustomize`) on dir and
// returns the multi-document YAML. Files outside dir may be loaded
// (--load-restrictor=LoadRestrictionsNone): the ConfigMaps are generated
// from deploy/device_classes and deploy/fleet_specs.
func Render(dir string) ([]byte, error) {
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsNone
	resources, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, err
	}
	return resources.AsYaml()
}
