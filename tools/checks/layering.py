#!/usr/bin/env python3
"""The house's layering rules, checked on the include graph and the CMake
target graph (docs/architecture.md, "Layering").

Every source file and every CMake target belongs to a component (its
directory, e.g. runtime/executor, loadtest/report). A component may use
only the components its row in ALLOWED names (and itself). The check
fails on:
  - a #include of a project header from a component the includer may not use;
  - a runtime or loadtest file including a library it must never see
    (gRPC, protobuf, abseil, Prometheus, libtorch; the runtime for loadtest);
  - a generated flatbuffer header reaching, through headers, a file of
    another component (the schema is private to the component that parses
    it; test code excepted);
  - a CMake target linking a project target of a component it may not use;
  - the target graph in docs/architecture.md naming a library or an arrow
    that CMake does not have, or missing a library that CMake has.
Test code (*_test.cc, test utilities, test/, fuzz/, benchmarks) may also use
test/ and its component's test helpers; the bans on outside libraries hold
for runtime tests too.

Usage: layering.py [SOURCE_DIR]   (exit 0: clean; 1: violations, listed)
Standard library only.
"""

import os
import re
import sys

# Component -> the components it may use (besides itself).
ALLOWED = {
    "runtime/platform": [],
    "runtime/core": ["runtime/platform"],
    "runtime/format": ["runtime/core", "runtime/platform"],
    "runtime/kernels": ["runtime/core", "runtime/platform"],
    "runtime/kernels/portable": ["runtime/kernels", "runtime/core", "runtime/platform"],
    "runtime/kernels/optimized": ["runtime/kernels/portable", "runtime/kernels", "runtime/core",
                                  "runtime/platform"],
    "runtime/devtools/event_tracer": [],  # the tracer interface the executor calls
    "runtime/backends": ["runtime/devtools/event_tracer", "runtime/core", "runtime/platform"],
    # The delegate runs some nodes on the optimized kernels (dense_nodes.h).
    "runtime/backends/xnnpack": ["runtime/backends", "runtime/kernels/optimized",
                                 "runtime/kernels/portable", "runtime/kernels",
                                 "runtime/devtools/event_tracer", "runtime/core",
                                 "runtime/platform"],
    "runtime/loaders": ["runtime/core", "runtime/platform"],
    "runtime/executor": ["runtime/format", "runtime/kernels", "runtime/backends",
                         "runtime/devtools/event_tracer", "runtime/core", "runtime/platform"],
    "runtime/devtools": ["runtime/devtools/event_tracer", "runtime/executor", "runtime/format", "runtime/kernels",
                         "runtime/backends", "runtime/loaders", "runtime/core",
                         "runtime/platform"],
    "runtime/module": ["runtime/devtools/event_tracer", "runtime/executor", "runtime/loaders", "runtime/format", "runtime/kernels",
                       "runtime/backends", "runtime/core", "runtime/platform"],
    "runtime/kernels/coverage": [],  # tests only
    "runtime/tools": ["runtime/module", "runtime/devtools", "runtime/devtools/event_tracer", "runtime/executor", "runtime/loaders",
                      "runtime/format", "runtime/kernels", "runtime/kernels/portable",
                      "runtime/kernels/optimized", "runtime/backends",
                      "runtime/backends/xnnpack", "runtime/core", "runtime/platform"],
    "common": [],  # the annotated Mutex, for service/ and loadtest/
    "proto": [],
    "service/transport_security": [],
    "service": ["common", "proto", "service/transport_security", "runtime/module", "runtime/devtools",
                "runtime/devtools/event_tracer",
                "runtime/executor", "runtime/loaders", "runtime/format", "runtime/kernels",
                "runtime/kernels/portable", "runtime/kernels/optimized", "runtime/backends",
                "runtime/backends/xnnpack", "runtime/core", "runtime/platform"],
    "loadtest/stats": [],
    "loadtest/results": ["loadtest/stats"],
    "loadtest/testing": ["loadtest/results", "loadtest/stats"],
    "loadtest/report": ["loadtest/results", "loadtest/stats"],
    "loadtest/driver": ["common", "proto", "service/transport_security", "loadtest/results",
                        "loadtest/stats"],
    "loadtest/tools": ["proto", "service/transport_security", "loadtest/driver",
                       "loadtest/report", "loadtest/testing", "loadtest/results",
                       "loadtest/stats"],
    "loadtest/bench": ["loadtest/tools", "loadtest/driver", "loadtest/report",
                       "loadtest/testing", "loadtest/results", "loadtest/stats"],
}

# Include prefixes that runtime/ and loadtest/ code must never use.
RUNTIME_BANNED = ("grpc", "grpcpp/", "google/protobuf/", "absl/", "prometheus/", "inference/",
                  "edgefleet/", "torch/", "ATen/", "c10/", "caffe2/")
# Runtime library code (not its tests) also uses no JSON library.
RUNTIME_LIBRARY_BANNED = RUNTIME_BANNED + ("nlohmann/",)
LOADTEST_BANNED = ("torch/", "ATen/", "c10/", "caffe2/", "prometheus/")

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]', re.M)
PROJECT_TOPS = ("runtime", "common", "service", "loadtest", "proto", "test", "fuzz", "tools")
SOURCE_EXTS = (".h", ".cc")
SKIP_DIRS = {"build", ".git", ".cache", ".venv", "node_modules"}


def component(path):
    """The component of a repository-relative path, or None (no rules)."""
    parts = path.split("/")
    top = parts[0]
    if top == "runtime" and len(parts) > 2:
        if parts[1] == "devtools" and os.path.splitext(parts[-1])[0] == "event_tracer":
            return "runtime/devtools/event_tracer"
        if parts[1] in ("kernels", "backends") and len(parts) > 3:
            return "/".join(parts[:3])
        return "/".join(parts[:2])
    if top == "loadtest" and len(parts) > 2:
        return "/".join(parts[:2])
    if top == "service":
        stem = os.path.splitext(parts[-1])[0]
        # TLS credentials and the admin token: the one library the fleet
        # driver shares with the server.
        return ("service/transport_security" if stem in ("transport_security", "admin_token")
                else "service")
    if top in ("proto", "edgefleet", "inference"):
        return "proto"
    if top == "common":
        return "common"
    return None


def is_test_code(path):
    name = os.path.basename(path)
    return (path.startswith(("test/", "fuzz/")) or "_test" in name or "test_" in name
            or "bench" in name or "/bench/" in path or "testing/" in path)


def include_component(target):
    top = target.split("/")[0]
    if top in ("edgefleet", "inference"):
        return "proto"
    if top in PROJECT_TOPS:
        return component(target)
    return None


def read_sources(root):
    """{path: [(line, include)]} for every C++ file of a component."""
    sources = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if not name.endswith(SOURCE_EXTS):
                continue
            full = os.path.join(dirpath, name)
            path = os.path.relpath(full, root).replace(os.sep, "/")
            if component(path) is None:
                continue
            with open(full, encoding="utf-8", errors="replace") as f:
                sources[path] = [(line, target) for line, (_, target) in _includes(f.read())]
    return sources


def schema_headers(sources):
    """Headers that include a generated flatbuffer header, directly or
    through other such headers."""
    exposing = {p for p, incs in sources.items()
                if p.endswith(".h") and any(t.endswith("_generated.h") for _, t in incs)}
    grew = True
    while grew:
        grew = False
        for p, incs in sources.items():
            if p.endswith(".h") and p not in exposing and any(t in exposing for _, t in incs):
                exposing.add(p)
                grew = True
    return exposing


def check_includes(root):
    problems = []
    sources = read_sources(root)
    exposing = schema_headers(sources)
    for path, incs in sorted(sources.items()):
        own = component(path)
        if own not in ALLOWED:
            problems.append(f"{path}: component {own} has no row in tools/checks/layering.py "
                            "(ALLOWED) and docs/architecture.md")
            continue
        test = is_test_code(path)
        banned = RUNTIME_BANNED if test else RUNTIME_LIBRARY_BANNED
        for line_no, target in incs:
            where = f"{path}:{line_no}"
            if own.startswith("runtime/") and target.startswith(banned):
                problems.append(f"{where}: runtime code includes <{target}> "
                                "(the runtime links no gRPC, protobuf, abseil, Prometheus, "
                                "libtorch or JSON library)")
                continue
            if own.startswith("loadtest/") and target.startswith(LOADTEST_BANNED):
                problems.append(f"{where}: loadtest code includes <{target}>")
                continue
            used = include_component(target)
            if used is None or used == own:
                continue
            if target in exposing and not test:
                problems.append(f"{where}: {target} carries a generated flatbuffer header "
                                f"into {own} (keep the schema private to {used})")
                continue
            if test and (target.startswith("test/") or used.split("/")[0] == own.split("/")[0]):
                continue
            if used not in ALLOWED[own]:
                problems.append(f"{where}: {own} includes {target} ({used}); "
                                f"{own} may use: {', '.join(ALLOWED[own]) or 'nothing'}")
    return problems


def _includes(text):
    for match in INCLUDE.finditer(text):
        yield text.count("\n", 0, match.start()) + 1, (match.group(1), match.group(2))


# --- CMake target graph ------------------------------------------------------

CALL = re.compile(r"\b(ef_cc_library|ef_cc_binary|ef_cc_test|add_library|add_executable|"
                  r"target_link_libraries)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)", re.S)
KEYWORDS = {"NAME", "SRCS", "HDRS", "DEPS", "PRIVATE_DEPS", "RUNTIME", "LABELS", "PREFIX", "PUBLIC",
            "PRIVATE", "INTERFACE", "STATIC", "SHARED"}


def cmake_targets(root):
    """{target: (component, kind, {deps})} for the project's own targets."""
    targets = {}
    links = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        if "CMakeLists.txt" not in filenames:
            continue
        rel = os.path.relpath(dirpath, root).replace(os.sep, "/")
        with open(os.path.join(dirpath, "CMakeLists.txt"), encoding="utf-8") as f:
            text = re.sub(r"#[^\n]*", "", f.read())
        for call, body in CALL.findall(text):
            words = body.split()
            if not words:
                continue
            if call.startswith("ef_cc_"):
                args = _sections(words)
                name = args.get("NAME", [None])[0]
                deps = args.get("DEPS", []) + args.get("PRIVATE_DEPS", [])
                kind = {"ef_cc_library": "library", "ef_cc_binary": "binary",
                        "ef_cc_test": "test"}[call]
            elif call == "target_link_libraries":
                links.append((words[0], [w for w in words[1:] if w not in KEYWORDS]))
                continue
            else:
                name, deps = words[0], []
                kind = "library" if call == "add_library" else "binary"
            if name is None or "$" in name:
                continue
            comp = component(rel + "/x.cc") if rel != "." else None
            if name == "ef_transport_security":
                comp = "service/transport_security"
            if name == "ef_event_tracer":
                comp = "runtime/devtools/event_tracer"
            if name.endswith(("_test", "_test_util", "_bench")) or rel.startswith(("test", "fuzz")):
                kind = "test"
            old = targets.get(name)
            merged = set(deps) | (old[2] if old else set())
            targets[name] = (comp, kind, merged)
    for name, deps in links:
        if name in targets:
            targets[name][2].update(deps)
    for name, (comp, kind, deps) in targets.items():
        deps.intersection_update(targets.keys())
    return targets


def _sections(words):
    sections, current = {}, None
    for w in words:
        if w in KEYWORDS:
            current = w
            sections.setdefault(w, [])
        elif current:
            sections[current].append(w)
    return sections


def check_targets(targets):
    problems = []
    for name, (comp, kind, deps) in sorted(targets.items()):
        if kind == "test" or comp is None or comp not in ALLOWED:
            continue
        for dep in sorted(deps):
            dep_comp = targets[dep][0]
            if targets[dep][1] == "test" and kind != "test":
                problems.append(f"CMake: {name} ({comp}) links the test target {dep}")
            elif dep_comp and dep_comp != comp and dep_comp not in ALLOWED[comp]:
                problems.append(f"CMake: {name} ({comp}) links {dep} ({dep_comp}); "
                                f"{comp} may use: {', '.join(ALLOWED[comp]) or 'nothing'}")
    return problems


# "- `lib` → `dep`, `dep` (optional remark)" or "- `lib` (optional remark)".
GRAPH_LINE = re.compile(r"^- `([\w-]+)`(?: → ([^(]*))?(?:\s*\(.*\))?$")


def check_doc(root, targets):
    """docs/architecture.md's target graph against CMake."""
    path = os.path.join(root, "docs", "architecture.md")
    if not os.path.exists(path):
        return ["docs/architecture.md is missing"]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    block = re.search(r"<!-- target-graph -->(.*?)<!-- /target-graph -->", text, re.S)
    if not block:
        return ["docs/architecture.md: no <!-- target-graph --> block"]
    problems, named = [], set()
    for line in block.group(1).splitlines():
        match = GRAPH_LINE.match(line.strip())
        if not match:
            continue
        name = match.group(1)
        named.add(name)
        if name not in targets:
            problems.append(f"docs/architecture.md: `{name}` is not a CMake target")
            continue
        for dep in re.findall(r"`([\w-]+)`", match.group(2) or ""):
            if dep not in targets[name][2]:
                problems.append(f"docs/architecture.md: `{name}` → `{dep}` is not a CMake link")
    for name, (comp, kind, _) in sorted(targets.items()):
        if kind != "test" and comp is not None and name.startswith(("ef_", "edgefleet-")) \
                and name not in named:
            problems.append(f"docs/architecture.md: the target graph omits `{name}`")
    return problems


def main(argv):
    root = os.path.abspath(argv[1] if len(argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    targets = cmake_targets(root)
    problems = check_includes(root) + check_targets(targets) + check_doc(root, targets)
    for p in problems:
        print(p)
    if problems:
        print(f"layering: {len(problems)} violation(s)")
        return 1
    print(f"layering: clean ({len(targets)} targets)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
