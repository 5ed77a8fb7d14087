"""Checks deploy/k8s beyond each resource's own schema (kubernetes-validate
does that): KEDA resources against keda.schema.json, and the references
between resources — every ConfigMap/Secret a pod reads exists and holds the
keys it is asked for, every probe and Service port names a container port,
every ScaledObject scales a Deployment here and watches a queue ragpipe
declares, and every Deployment has readiness and liveness probes.
Exits 1 with one line per problem."""
import json
import pathlib
import sys

import jsonschema
import yaml

HERE = pathlib.Path(__file__).parent
QUEUES = {"ragpipe.extract", "ragpipe.embed"}


def main(folder):
    docs = [(p.name, d) for p in sorted(folder.glob("*.yaml")) for d in yaml.safe_load_all(p.read_text()) if d]
    by_kind = {}
    for name, d in docs:
        by_kind.setdefault(d["kind"], {})[d["metadata"]["name"]] = d
    problems = []
    keda = json.loads((HERE / "keda.schema.json").read_text())
    for name, d in docs:
        if d["apiVersion"].startswith("keda.sh/"):
            for e in jsonschema.Draft202012Validator(keda).iter_errors(d):
                problems.append(f"{name}: {d['kind']}/{d['metadata']['name']}: {e.message} at {list(e.absolute_path)}")
    config = by_kind.get("ConfigMap", {})
    secrets = by_kind.get("Secret", {})
    for name, d in docs:
        pod = pod_spec(d)
        if pod is None:
            continue
        where = f"{name}: {d['kind']}/{d['metadata']['name']}"
        volumes = {v["name"]: v for v in pod.get("volumes", [])}
        for c in pod["containers"]:
            ports = {p.get("name") for p in c.get("ports", [])} | {p["containerPort"] for p in c.get("ports", [])}
            for src in c.get("envFrom", []):
                if "configMapRef" in src and src["configMapRef"]["name"] not in config:
                    problems.append(f"{where}: no ConfigMap {src['configMapRef']['name']}")
                if "secretRef" in src and src["secretRef"]["name"] not in secrets:
                    problems.append(f"{where}: no Secret {src['secretRef']['name']}")
            for m in c.get("volumeMounts", []):
                v = volumes.get(m["name"])
                if v is None:
                    problems.append(f"{where}: mounts unknown volume {m['name']}")
                elif "configMap" in v:
                    cm = config.get(v["configMap"]["name"])
                    keys = [i["key"] for i in v["configMap"].get("items", [])]
                    if cm is None or any(k not in cm.get("data", {}) for k in keys):
                        problems.append(f"{where}: volume {m['name']} needs keys {keys} of {v['configMap']['name']}")
            for probe in ("readinessProbe", "livenessProbe"):
                p = c.get(probe)
                if d["kind"] == "Deployment" and p is None:
                    problems.append(f"{where}: container {c['name']} has no {probe}")
                if p and p.get("httpGet", {}).get("port") not in ports:
                    problems.append(f"{where}: {probe} port {p['httpGet']['port']} is not a container port")
    for sname, svc in by_kind.get("Service", {}).items():
        targets = [dep for dep in by_kind.get("Deployment", {}).values()
                   if all(dep["spec"]["template"]["metadata"]["labels"].get(k) == v for k, v in svc["spec"]["selector"].items())]
        if not targets:
            problems.append(f"Service/{sname}: selects no Deployment")
        for port in svc["spec"]["ports"]:
            names = {p.get("name") for t in targets for c in t["spec"]["template"]["spec"]["containers"] for p in c.get("ports", [])}
            if port.get("targetPort") not in names:
                problems.append(f"Service/{sname}: targetPort {port.get('targetPort')} is not a container port")
    for oname, so in by_kind.get("ScaledObject", {}).items():
        if so["spec"]["scaleTargetRef"]["name"] not in by_kind.get("Deployment", {}):
            problems.append(f"ScaledObject/{oname}: scales unknown Deployment {so['spec']['scaleTargetRef']['name']}")
        for t in so["spec"]["triggers"]:
            if t["metadata"].get("queueName") not in QUEUES:
                problems.append(f"ScaledObject/{oname}: watches {t['metadata'].get('queueName')}, not one of {sorted(QUEUES)}")
            auth = t.get("authenticationRef", {}).get("name")
            if auth and auth not in by_kind.get("TriggerAuthentication", {}):
                problems.append(f"ScaledObject/{oname}: no TriggerAuthentication {auth}")
    for aname, ta in by_kind.get("TriggerAuthentication", {}).items():
        for ref in ta["spec"]["secretTargetRef"]:
            if ref["key"] not in secrets.get(ref["name"], {}).get("stringData", {}):
                problems.append(f"TriggerAuthentication/{aname}: no key {ref['key']} in Secret {ref['name']}")
    for p in problems:
        print(f"check.py: {p}", file=sys.stderr)
    print(f"check.py: {len(docs)} resources, {len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


def pod_spec(d):
    if d["kind"] == "Deployment":
        return d["spec"]["template"]["spec"]
    if d["kind"] == "CronJob":
        return d["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    if d["kind"] == "Job":
        return d["spec"]["template"]["spec"]
    return None


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE))
