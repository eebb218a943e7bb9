"""Runs Harbor's own Terminus-2 reply parsers (../shared/oracles/harbor: terminus_json_plain_parser.py
and terminus_xml_plain_parser.py, which import only the standard library) on a list of replies and
prints what each gives, as JSON.

Usage: python3 terminus2ParserDriver.py HARBOR_SRC < {"json": [reply...], "xml": [reply...]} > results.json

The modules are loaded by path: the package's `__init__` imports the whole agent (litellm, ...).
"""
import importlib.util
import json
import sys
from pathlib import Path

folder = Path(sys.argv[1]) / "harbor" / "agents" / "terminus_2"


def load(name):
    spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


parsers = {
    "json": load("terminus_json_plain_parser").TerminusJSONPlainParser(),
    "xml": load("terminus_xml_plain_parser").TerminusXMLPlainParser(),
}
request = json.load(sys.stdin)
out = {}
for kind, replies in request.items():
    out[kind] = []
    for reply in replies:
        r = parsers[kind].parse_response(reply)
        out[kind].append(
            {
                "commands": [{"keystrokes": c.keystrokes, "duration": c.duration} for c in r.commands],
                "isTaskComplete": bool(r.is_task_complete),
                "error": r.error,
                "warning": r.warning,
                "analysis": r.analysis if isinstance(r.analysis, str) else str(r.analysis),
                "plan": r.plan if isinstance(r.plan, str) else str(r.plan),
            }
        )
json.dump(out, sys.stdout, ensure_ascii=False)
