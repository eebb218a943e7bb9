"""Runs R2E-Gym's own action, runtime and observation code (../shared/oracles/r2e-gym, 69bc953)
on a list of actions against a running container, and prints, per action, the action as R2E-Gym records it and the observation, as JSON.

Usage: python3 r2eOracleDriver.py ORACLE_SRC CONTAINER_ID < actions.json > observations.json

R2E-Gym's runtime module imports parts of R2E-Gym that are not in the reference checkout (the
Docker and Kubernetes clients, its dataset code), so its `DockerRuntime.run` method is taken
from the module's source text with `ast` and run on an object that stands in for the runtime:
its `container.exec_run` is `docker exec` with the same arguments. `Action` and `Observation`
are imported as they are; `CONTINUE_MSG` (in the package's `__init__`, not in the checkout)
is a placeholder, and replies without a call are left out of the comparison for that reason.
"""
import ast
import concurrent.futures
import json
import re
import subprocess
import sys
import types
from pathlib import Path

src, container = Path(sys.argv[1]), sys.argv[2]
agenthub = src / "r2egym" / "agenthub"

package = types.ModuleType("r2egym")
package.__path__ = [str(src / "r2egym")]
hub = types.ModuleType("r2egym.agenthub")
hub.__path__ = [str(agenthub)]
hub.CONTINUE_MSG = "<CONTINUE_MSG is not in the reference checkout>"
sys.modules["r2egym"], sys.modules["r2egym.agenthub"] = package, hub

from r2egym.agenthub.action import Action  # noqa: E402
from r2egym.agenthub.observation import Observation  # noqa: E402

runtime_source = (agenthub / "runtime" / "docker.py").read_text()
tree = ast.parse(runtime_source)
names = {"re": re, "concurrent": concurrent, "CMD_TIMEOUT": 90}
for node in tree.body:
    if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "DOCKER_PATH" for t in node.targets):
        exec(compile(ast.Module(body=[node], type_ignores=[]), "docker.py", "exec"), names)
runtime_class = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "DockerRuntime")
run_def = next(n for n in runtime_class.body if isinstance(n, ast.FunctionDef) and n.name == "run")
exec(compile(ast.Module(body=[run_def], type_ignores=[]), "docker.py", "exec"), names)
run = names["run"]


class ExecResult:
    def __init__(self, output, exit_code):
        self.output, self.exit_code = output, exit_code


class Container:
    """docker-py's `exec_run(cmd, workdir, stdout, stderr, environment)` without a tty or stdin."""

    def exec_run(self, cmd, workdir, stdout, stderr, environment):
        argv = ["docker", "exec", "-w", workdir]
        for key, value in environment.items():
            argv += ["-e", f"{key}={value}"]
        done = subprocess.run(argv + [container] + cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        return ExecResult(done.stdout, done.returncode)


class Logger:
    def error(self, *args):
        pass


runtime = types.SimpleNamespace(container=Container(), repo_path="/testbed", logger=Logger())
observations = []
for text in json.load(sys.stdin):
    action = Action.from_string(text)
    if not action.function_name:
        output, code = "", 0
    else:
        output, code = run(runtime, action.to_bashcmd(), timeout=90)
    observations.append({"action": action.to_xml_string(), "observation": str(Observation(output, code, action))})
json.dump(observations, sys.stdout)
