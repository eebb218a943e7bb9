"""Runs Harbor's own TmuxSession (../shared/oracles/harbor, Terminus-2's tmux_session.py) against a
running container and prints, per operation, what it reported, as JSON.

Usage: python3 terminus2TmuxDriver.py HARBOR_SRC CONTAINER_ID < ops.json > results.json

ops.json: {"session": NAME, "width": W, "height": H, "ops": [...]} where an op is
  {"op": "send", "keys": str | [str], "block": bool, "min_timeout_sec": float, "max_timeout_sec": float}
  {"op": "incremental"}            -> {"output": get_incremental_output()}
  {"op": "capture", "entire": bool} -> {"output": capture_pane(...)}
A `send` answers {"error": "TimeoutError: ..."} when Harbor's code raised, else {}.

The module is loaded on its own: the package's `__init__` imports the whole agent (litellm,
pydantic 2, ...), which Debian's archive does not have at the versions Harbor needs, so the
package and the three modules tmux_session.py imports besides the standard library are given
here: `harbor.environments.base.BaseEnvironment` (only a type hint there), `harbor.utils.logger`
(a standard logger) and `AsciinemaHandler` (used only when recording, which these runs do not).
The environment object is Harbor's contract as TmuxSession uses it: `exec(command, user)` giving
`stdout`, `stderr` and `return_code`, here `docker exec CONTAINER bash -c COMMAND`.
"""
import asyncio
import importlib.util
import json
import logging
import sys
import types
from pathlib import Path, PurePosixPath

src, container = Path(sys.argv[1]), sys.argv[2]
module_path = src / "harbor" / "agents" / "terminus_2" / "tmux_session.py"


def stub(name, **attrs):
    module = types.ModuleType(name)
    module.__path__ = []
    for key, value in attrs.items():
        setattr(module, key, value)
    sys.modules[name] = module


class BaseEnvironment:
    pass


class AsciinemaHandler:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("asciinema recording is not part of these runs")


for name in ["harbor", "harbor.agents", "harbor.agents.terminus_2", "harbor.environments", "harbor.utils"]:
    stub(name)
stub("harbor.environments.base", BaseEnvironment=BaseEnvironment)
stub("harbor.utils.logger", logger=logging.getLogger("harbor"))
stub("harbor.agents.terminus_2.asciinema_handler", AsciinemaHandler=AsciinemaHandler)

spec = importlib.util.spec_from_file_location("harbor.agents.terminus_2.tmux_session", module_path)
tmux_session = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tmux_session)


class ExecResult:
    def __init__(self, stdout, stderr, return_code):
        self.stdout, self.stderr, self.return_code = stdout, stderr, return_code


class DockerExecEnvironment:
    session_id = "conformance"

    async def exec(self, command, user=None, **_):
        argv = ["docker", "exec"] + (["-u", str(user)] if user is not None else []) + [container, "bash", "-c", command]
        process = await asyncio.create_subprocess_exec(*argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await process.communicate()
        return ExecResult(out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), process.returncode)


async def main():
    request = json.load(sys.stdin)
    session = tmux_session.TmuxSession(
        session_name=request["session"],
        environment=DockerExecEnvironment(),
        logging_path=PurePosixPath(request.get("logging_path", "/logs/agent/terminus_2.pane")),
        local_asciinema_recording_path=None,
        remote_asciinema_recording_path=None,
        pane_width=request.get("width", 160),
        pane_height=request.get("height", 40),
    )
    await session.start()
    results = []
    for op in request["ops"]:
        if op["op"] == "send":
            try:
                await session.send_keys(
                    op["keys"],
                    block=op.get("block", False),
                    min_timeout_sec=op.get("min_timeout_sec", 0.0),
                    max_timeout_sec=op.get("max_timeout_sec", 180.0),
                )
                results.append({})
            except TimeoutError as error:
                results.append({"error": f"TimeoutError: {error}"})
        elif op["op"] == "incremental":
            results.append({"output": await session.get_incremental_output()})
        elif op["op"] == "capture":
            results.append({"output": await session.capture_pane(capture_entire=op.get("entire", False))})
        else:
            raise ValueError(f"unknown op {op['op']!r}")
    json.dump(results, sys.stdout)


asyncio.run(main())
