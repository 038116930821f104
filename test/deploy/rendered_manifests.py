"""Running the rendered Kubernetes manifests' containers as local
processes (docs/deploy.md): the pods' container paths mapped to local
files and directories. ConfigMap volumes are written from the rendered
ConfigMaps; Secret volumes map to local directories holding the Secret's
keys as files (the tests make them: the repository holds no keys).
Not thread-safe."""

import os
import re

import yaml


def load(rendered):
    """The objects of a rendered manifest file, in order."""
    with open(rendered) as f:
        return [o for o in yaml.safe_load_all(f) if o]


def pod_spec(obj):
    return obj["spec"]["template"]["spec"]


def scale_down(name, text):
    """A fleet spec as rendered, with fewer devices and real-inference
    devices so a test stays short (about 20x less work); every other field,
    the seed included, is the manifest's. Other files are unchanged."""
    if not name.endswith(".textproto") or "devices:" not in text:
        return text
    text = re.sub(r"(?m)^devices: *\d+", "devices: 150", text)
    return re.sub(r"real_devices: *\d+", "real_devices: 2", text)


def mounts_to_local(spec, container, configmaps, workdir, secrets=None):
    """Returns {mount path: local directory} for the container's ConfigMap
    volumes (written into workdir, fleet specs scaled down) and Secret
    volumes (secrets: {Secret name: local directory}; a Secret volume with
    items sees only those keys, which a local directory cannot hide, so the
    items must name keys the directory has)."""
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    paths = {}
    for m in container.get("volumeMounts", []):
        v = volumes[m["name"]]
        if "configMap" in v:
            local = os.path.join(workdir, "cm", m["name"])
            os.makedirs(local, exist_ok=True)
            for name, text in configmaps[v["configMap"]["name"]]["data"].items():
                with open(os.path.join(local, name), "w") as f:
                    f.write(scale_down(name, text))
            paths[m["mountPath"]] = local
        elif "secret" in v and secrets is not None:
            local = secrets[v["secret"]["secretName"]]
            for item in v["secret"].get("items", []):
                if item["key"] != item["path"] or not os.path.exists(os.path.join(local, item["key"])):
                    raise RuntimeError(f"Secret volume {m['name']}: item {item} is not a file of {local}")
            paths[m["mountPath"]] = local
    return paths


def localize(args, paths):
    """Maps container paths at the start of an argument or of a flag's
    value (--flag=/path) to local ones; the longest container path wins."""
    out = []
    for a in args:
        flag, eq, value = a.partition("=") if a.startswith("--") else ("", "", a)
        for container_path, local in sorted(paths.items(), key=lambda p: -len(p[0])):
            if value == container_path or value.startswith(container_path + "/"):
                value = local + value[len(container_path):]
                break
        out.append(flag + eq + value)
    return out
