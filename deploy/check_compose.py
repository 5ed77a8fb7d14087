"""Validates deploy/compose.yaml against the Compose Specification's JSON
schema (given as the first argument; scripts/check-deploy.sh fetches it),
then checks that every ragpipe service's command is a ragpipe subcommand
and every `depends_on` names a service. Exits 1 with one line per problem."""
import json
import pathlib
import sys

import jsonschema
import yaml

SUBCOMMANDS = {"sync", "serve", "status", "search", "documents", "retry"}


def main(schema_path, compose_path):
    schema = json.loads(pathlib.Path(schema_path).read_text())
    doc = yaml.safe_load(pathlib.Path(compose_path).read_text())
    validator = jsonschema.Draft7Validator(schema)
    problems = [f"{e.message} at {list(e.absolute_path)}" for e in validator.iter_errors(doc)]
    services = doc.get("services", {})
    for name, svc in services.items():
        for dep in svc.get("depends_on", {}):
            if dep not in services:
                problems.append(f"{name}: depends on unknown service {dep}")
        cmd = svc.get("command") or []
        if svc.get("image", "").startswith("ragpipe") and (cmd[:1] != ["ragpipe"] or cmd[1] not in SUBCOMMANDS):
            problems.append(f"{name}: command {cmd} is not a ragpipe subcommand")
    for p in problems:
        print(f"check_compose.py: {p}", file=sys.stderr)
    print(f"check_compose.py: {len(services)} services, {len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
