#!/usr/bin/env bash
# Validates deploy/: every Kubernetes manifest against the Kubernetes 1.37
# schemas (kubernetes-validate --strict: unknown fields are errors), the KEDA
# resources against deploy/k8s/keda.schema.json, the references between
# resources (deploy/k8s/check.py), and deploy/compose.yaml as YAML. First
# proves the checkers can fail, on manifests broken on purpose.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
die() { echo "check-deploy.sh: $*" >&2; exit 1; }
source scripts/lib/python.sh
find_python

CACHE="${RAGPIPE_CACHE:-$HOME/.cache/ragpipe}"
VENV="$CACHE/k8s-venv"
STAMP="$VENV/.requirements"
if ! cmp -s deploy/k8s/requirements.txt "$STAMP" 2>/dev/null; then
  echo "check-deploy.sh: installing the manifest checker into $VENV" >&2
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r deploy/k8s/requirements.txt >&2
  cp deploy/k8s/requirements.txt "$STAMP"
fi

broken=$(mktemp -d)
trap 'rm -rf "$broken"' EXIT
cp deploy/k8s/*.yaml "$broken/"
sed -i 's/containerPort: 9090/containerPort: "ninety"/' "$broken/extractor.yaml"
if "$VENV/bin/kubernetes-validate" --strict --quiet "$broken/extractor.yaml" >/dev/null 2>&1; then
  die "kubernetes-validate accepted a Deployment with a string port: the check is not working"
fi
sed -i 's/queueName: ragpipe.embed/queueName: ragpipe.embedd/' "$broken/keda.yaml"
if "$VENV/bin/python" deploy/k8s/check.py "$broken" 2>/dev/null; then
  die "check.py accepted a ScaledObject watching a queue ragpipe never declares"
fi

"$VENV/bin/kubernetes-validate" --strict --quiet --no-warn deploy/k8s/*.yaml
"$VENV/bin/python" deploy/k8s/check.py deploy/k8s
"$VENV/bin/python" -c 'import sys, yaml; yaml.safe_load(open(sys.argv[1]))' deploy/compose.yaml
echo "check-deploy.sh: deploy/k8s and deploy/compose.yaml OK" >&2
