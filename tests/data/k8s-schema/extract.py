#!/usr/bin/env python3
"""Regenerates tests/data/k8s-schema/v1.33-served-kinds.json.

The source is the Kubernetes 1.33.0 OpenAPI definitions as JSON Schema, shipped
in the PyPI package `kubernetes-validate` 1.37.0 at
`kubernetes_validate/kubernetes-json-schema/v1.33.0-local/_definitions.json`
(generated there from the upstream swagger.json with openapi2jsonschema).

The extract keeps only the definitions reachable (through `$ref`) from the
kinds the simulator serves, the list envelopes, Status and WatchEvent, and
drops every `description` to stay small. Nothing else is changed.

Usage: python3 tests/data/k8s-schema/extract.py   (needs pip and the network
to PyPI; or pass the path of an already downloaded wheel as the argument)
"""

import json
import os
import subprocess
import sys
import tempfile
import zipfile

PACKAGE = "kubernetes-validate"
VERSION = "1.37.0"
MEMBER = "kubernetes_validate/kubernetes-json-schema/v1.33.0-local/_definitions.json"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "v1.33-served-kinds.json")

CORE = "io.k8s.api.core.v1."
META = "io.k8s.apimachinery.pkg.apis.meta.v1."
ROOTS = [
    CORE + k
    for k in ["Namespace", "NamespaceList", "Node", "NodeList", "Pod", "PodList", "Event", "EventList"]
] + [
    "io.k8s.api.apps.v1.DaemonSet",
    "io.k8s.api.apps.v1.DaemonSetList",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionList",
    META + "Status",
    META + "WatchEvent",
]


def load(wheel=None):
    if wheel is None:
        tmp = tempfile.mkdtemp()
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "-d", tmp, f"{PACKAGE}=={VERSION}"],
            check=True,
        )
        wheel = next(os.path.join(tmp, f) for f in os.listdir(tmp) if f.endswith(".whl"))
    with zipfile.ZipFile(wheel) as z:
        return json.loads(z.read(MEMBER))


def refs(node, out):
    if isinstance(node, dict):
        r = node.get("$ref")
        if isinstance(r, str) and r.startswith("#/$defs/"):
            out.add(r[len("#/$defs/"):])
        for v in node.values():
            refs(v, out)
    elif isinstance(node, list):
        for v in node:
            refs(v, out)


def strip(node):
    if isinstance(node, dict):
        return {k: strip(v) for k, v in node.items() if k != "description"}
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node


def main():
    defs = load(sys.argv[1] if len(sys.argv) > 1 else None)["$defs"]
    keep, todo = set(), list(ROOTS)
    while todo:
        name = todo.pop()
        if name in keep:
            continue
        keep.add(name)
        found = set()
        refs(defs[name], found)
        todo.extend(found - keep)
    doc = {
        "source": f"PyPI {PACKAGE} {VERSION}: {MEMBER}",
        "kubernetesVersion": "1.33.0",
        "roots": ROOTS,
        "$defs": {k: strip(defs[k]) for k in sorted(keep)},
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{OUT}: {len(keep)} definitions")


if __name__ == "__main__":
    main()
