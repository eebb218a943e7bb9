"""Jinja2 as mini-swe-agent renders its templates (`Template(t, undefined=StrictUndefined).render(...)`).

python3 miniJinjaDriver.py templates ROOT   -> {"<config file>": {"<key>": template}} for every
                                               template key in mini-swe-agent's YAML configs under ROOT
python3 miniJinjaDriver.py render < cases   -> the rendered text of each {"template", "vars"} case,
                                               or {"error": ...} when Jinja2 refuses it
"""
import json
import sys
from pathlib import Path

import yaml
from jinja2 import StrictUndefined, Template

if sys.argv[1] == "templates":
    found = {}
    for path in sorted(Path(sys.argv[2]).rglob("*.yaml")):
        config = yaml.safe_load(path.read_text()) or {}
        for section in ("agent", "model", "environment"):
            for key, value in (config.get(section) or {}).items():
                if key.endswith("_template") and isinstance(value, str):
                    found.setdefault(str(path.relative_to(sys.argv[2])), {})[f"{section}.{key}"] = value
    json.dump(found, sys.stdout)
else:
    out = []
    for case in json.load(sys.stdin):
        try:
            out.append(Template(case["template"], undefined=StrictUndefined).render(**case["vars"]))
        except Exception as err:  # noqa: BLE001 - the test compares refusals too
            out.append({"error": type(err).__name__})
    json.dump(out, sys.stdout)
